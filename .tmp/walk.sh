set -u
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

curl -s -H "$A" -X POST $B/collections -H "$J" -d '{"name":"authors","fields":[{"name":"name","type":"string"}]}'
curl -s -H "$A" -X POST $B/collections -H "$J" -d '{"name":"tags","fields":[{"name":"label","type":"string"}]}'
curl -s -H "$A" -X POST $B/collections -H "$J" -d '{"name":"comments","fields":[{"name":"body","type":"text"}]}'
curl -s -H "$A" -X POST $B/collections -H "$J" -d '{
  "name": "posts",
  "fields": [
    {"name": "title",    "type": "string"},
    {"name": "author",   "type": "belongsTo"},
    {"name": "comments", "type": "hasMany"},
    {"name": "tags",     "type": "belongsToMany"}
  ]}'
# 201: posts gets the key column authorId, comments gets postId (both with a foreign key
# constraint and an index), and the through collection posts_tags (postId, tagId) is created

curl -s -H "$A" -X POST $B/authors -H "$J" -d '[{"name":"Ann"},{"name":"Bob"}]'
curl -s -H "$A" -X POST $B/tags    -H "$J" -d '[{"label":"news"},{"label":"tech"},{"label":"howto"}]'
curl -s -H "$A" -X POST $B/posts   -H "$J" -d '{"title":"Hello","authorId":1}'

curl -s -H "$A" -X POST $B/posts/1/comments -H "$J" -d '{"body":"First!"}'
# 201, Location: /api/comments/1, {"data":{"id":1,...,"body":"First!","postId":1}}
curl -s -H "$A" -X POST $B/posts/1/comments:create -H "$J" -d '{"body":"Nice post"}'

curl -s -H "$A" "$B/posts/1/comments?fields=id,body"
# {"data":[{"id":1,"body":"First!"},{"id":2,"body":"Nice post"}],"meta":{"count":2,"page":1,"pageSize":20,"totalPage":1}}
curl -s -H "$A" -X POST $B/posts/1/comments:count      # {"data":2}

curl -s -H "$A" -X POST $B/posts/1/tags:add -H "$J" -d '[1,2]'   # news, tech
curl -s -H "$A" -X POST $B/posts/1/tags:set -H "$J" -d '[2,3]'   # tech, howto
curl -s -H "$A" -X POST $B/posts/1/tags:remove/3                  # tech
curl -s -H "$A" "$B/posts/1/tags?fields=id,label"
# {"data":[{"id":2,"label":"tech"}],"meta":{"count":1,...}}
curl -s -H "$A" -X POST $B/posts/1/tags:add -H "$J" -d '[3,99]'
# 409 {"errors":[{"code":"REFERENCE_VIOLATION","message":"tags has no record 99","details":{"missing":["99"]}}]}
# nothing changed: tag 3 was not added either

curl -s -H "$A" "$B/posts/1/author?fields=id,name"         # {"data":{"id":1,"name":"Ann"}}
curl -s -H "$A" -X POST $B/posts/1/author:set/2            # {"data":null}: Bob is the author now
curl -s -H "$A" "$B/posts/1/author:get?fields=id,name"     # {"data":{"id":2,"name":"Bob"}}

curl -s -H "$A" -X POST "$B/posts?appends=author,tags" -H "$J" -d '{
  "title": "Nested",
  "author": {"name": "Cyd"},
  "tags": [1, 3],
  "comments": [{"body": "made with the post"}]}'
# 201 {"data":{"id":2,...,"title":"Nested","authorId":3,"author":{"id":3,...,"name":"Cyd"},
#      "tags":[{"id":1,...,"label":"news"},{"id":3,...,"label":"howto"}]}}

curl -s -H "$A" -G $B/posts -d appends=author,tags -d fields=id,title,author.name,tags.label
# {"data":[{"id":1,"title":"Hello","author":{"name":"Bob"},"tags":[{"label":"tech"}]},
#          {"id":2,"title":"Nested","author":{"name":"Cyd"},"tags":[{"label":"news"},{"label":"howto"}]}],"meta":{...}}

curl -s -H "$A" -G $B/posts --data-urlencode 'filter={"tags.label":"howto"}' -d fields=id,title
# {"data":[{"id":2,"title":"Nested"}],"meta":{"count":1,...}}
curl -s -H "$A" -G $B/posts --data-urlencode 'filter={"author":{"name":{"$in":["Ann","Bob"]}}}' -d fields=id,title
# {"data":[{"id":1,"title":"Hello"}],"meta":{"count":1,...}}
curl -s -H "$A" -G $B/posts -d sort=-author.name -d fields=id,title,author.name
# {"data":[{"id":2,"title":"Nested","author":{"name":"Cyd"}},{"id":1,"title":"Hello","author":{"name":"Bob"}}],...}

curl -s -X POST $B/roles -H "$A" -H "$J" -d '{"name":"reader","strategy":{"actions":["view"]}}'
curl -s -X POST $B/roles -H "$A" -H "$J" -d '{"name":"author","strategy":{"actions":["view"]},
  "resources":[{"name":"posts","actions":[{"name":"view"},
    {"name":"update","fields":["title"],"filter":{"title":{"$ne":"Hello"}}}]}]}'
curl -s -X POST $B/users -H "$A" -H "$J" -d '{"email":"ann@example.com","password":"ann-secret","roles":["reader","author"]}'
# 201 {"data":{"id":2,...,"email":"ann@example.com","roles":["reader","author"]}}   (never the password)
TA=$(curl -s -X POST $B/auth:signIn -H "$J" -d '{"account":"ann@example.com","password":"ann-secret"}' \
  | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.token')
curl -s $B/posts:count -H "authorization: Bearer $TA"                       # {"data":...}
curl -s -X POST $B/posts -H "authorization: Bearer $TA" -H "$J" -d '{"title":"x"}'
# 403 {"errors":[{"code":"FORBIDDEN","message":"your roles do not allow create on posts"}]}
curl -s -X POST $B/posts:update/1 -H "authorization: Bearer $TA" -H "$J" -d '{"title":"x"}'
# 404: post 1 is titled Hello, outside the author role's row filter
curl -s $B/posts:list -H "authorization: Bearer $TA" -H "X-Role: reader"  # one of the user's roles only
curl -s -X POST $B/auth:signOut -H "authorization: Bearer $TA"             # the token is revoked at once

curl -s $B/roles/author/resources -H "$A"                   # {"data":[{"name":"posts","actions":[...]}]}
curl -s -X POST $B/roles/reader/resources -H "$A" -H "$J" -d '{"name":"posts","actions":[{"name":"view","fields":["id","title"]}]}'
# 201 Location: /api/roles/reader/resources/posts: readers now see only id and title of posts
curl -s -X DELETE $B/roles/reader/resources/posts -H "$A"  # {"data":1}: the strategy applies again

curl -s -X POST $B/apiKeys -H "$A" -H "$J" -d '{"name":"ci","role":"reader","expiresIn":86400}'
# 201 {"data":{"id":1,"token":"eyJ…"}}
curl -s -X DELETE $B/apiKeys/1 -H "$A"                                      # {"data":1}
