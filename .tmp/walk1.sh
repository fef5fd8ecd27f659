B=http://127.0.0.1:13577/api
J='content-type: application/json'
T=$(curl -s -X POST $B/auth:signIn -H "$J" -d '{"account":"root@example.com","password":"change-me"}' \
  | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.token')
A="authorization: Bearer $T"
curl -s $B/auth:check -H "$A"   # {"data":{"id":1,"email":"root@example.com",...,"roles":["root"]}}

curl -s -H "$A" -X POST $B/collections:create -H "$J" -d '{
  "name": "posts", "title": "Posts",
  "fields": [
    {"name": "title",     "type": "string",  "allowNull": false},
    {"name": "views",     "type": "integer", "defaultValue": 0},
    {"name": "published", "type": "boolean"}
  ]}'
# 201, Location: /api/collections/posts, {"data":{"name":"posts",...,"fields":[...]}}

curl -s -H "$A" -X POST $B/posts:create -H "$J" -d '{"title":"Hello","views":10,"published":true}'
# 201, Location: /api/posts/1
# {"data":{"id":1,"createdAt":"2026-…Z","updatedAt":"2026-…Z","title":"Hello","views":10,"published":true}}
curl -s -H "$A" -X POST $B/posts -H "$J" -d '{"title":"Second","views":3}'
curl -s -H "$A" -X POST $B/posts -H "$J" -d '[{"title":"Third","views":7},{"title":"Fourth"}]'
# {"data":[{"id":3,...},{"id":4,...,"views":0,"published":null}]}

curl -s -H "$A" -G $B/posts:list --data-urlencode 'filter={"views":{"$gte":5}}' \
  -d sort=-views -d fields=id,title,views -d pageSize=2
# {"data":[{"id":1,"title":"Hello","views":10},{"id":3,"title":"Third","views":7}],
#  "meta":{"count":2,"page":1,"pageSize":2,"totalPage":1}}
curl -s -H "$A" "$B/posts?fields=id,title&page=2&pageSize=3"                # REST style list
# {"data":[{"id":4,"title":"Fourth"}],"meta":{"count":4,"page":2,"pageSize":3,"totalPage":2}}
curl -s -H "$A" -g "$B/posts:list?fields=id&filter[published][\$ne]=true"  # qs form; $ne also matches NULL
# {"data":[{"id":2},{"id":3},{"id":4}],"meta":{...}}
curl -s -H "$A" "$B/posts:count?filter=%7B%22views%22:%7B%22%24gt%22:5%7D%7D"
# {"data":2}

curl -s -H "$A" "$B/posts:get?filterByTk=1&fields=id,title"   # {"data":{"id":1,"title":"Hello"}}
curl -s -H "$A" "$B/posts:get/1?fields=id,title"
curl -s -H "$A" "$B/posts/1?fields=id,title"

curl -s -H "$A" -X POST "$B/posts:update?filterByTk=1" -H "$J" -d '{"views":11}'
curl -s -H "$A" -X POST  $B/posts:update/1 -H "$J" -d '{"views":12}'
curl -s -H "$A" -X PUT   $B/posts/1        -H "$J" -d '{"views":13}'   # PATCH works too
# {"data":{"id":1,...,"views":13,...}}
curl -s -H "$A" -X POST "$B/posts:update?filterByTk[]=1&filterByTk[]=2" -g -H "$J" -d '{"published":true}'
# {"data":[{"id":1,...},{"id":2,...}]}

curl -s -H "$A" -X POST   "$B/posts:destroy?filterByTk=4"   # {"data":1}
curl -s -H "$A" -X POST    $B/posts:destroy/3               # {"data":1}
curl -s -H "$A" -X DELETE  $B/posts/2                        # {"data":1}

curl -s -H "$A" -i -X POST $B/posts -H "$J" -d '{"title":"x","colour":"red"}'
# HTTP/1.1 400 Bad Request
# x-request-id: 649bdd5b-…
# {"errors":[{"code":"VALUE_UNKNOWN_FIELD","message":"posts has no field colour","field":"colour"}]}
curl -s -H "$A" $B/posts/2
# 404 {"errors":[{"code":"RECORD_NOT_FOUND","message":"no posts record matches"}]}
curl -s -H "$A" -X DELETE $B/posts
# 400 {"errors":[{"code":"KEY_REQUIRED","message":"name a key (path or filterByTk) or a non-empty filter"}]}

curl -s -H "$A" -X POST $B/collections/posts/fields -H "$J" -d '{"name":"slug","type":"string","length":80,"unique":true}'
curl -s -H "$A" -X PUT  $B/collections/posts/fields/slug -H "$J" -d '{"name":"handle"}'
curl -s -H "$A" -X DELETE $B/collections/posts/fields/handle     # {"data":1}
