declare -- B="http://127.0.0.1:13577/api"
declare -- J="content-type: application/json"
