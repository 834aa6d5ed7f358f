#!/usr/bin/env bash
# post.sh URL PROMPT [curl options...]: POST one chat request with curl, then
# print curl's exit code and the HTTP status, so a RUN line can check both.
url=$1 prompt=$2
shift 2
curl -sS "$@" -o body.out -w 'http=%{http_code}\n' -X POST \
  -H 'Content-Type: application/json' \
  -d "{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"$prompt\"}]}" \
  "$url/chat/completions"
echo "curl-exit=$?"
cat body.out 2>/dev/null
echo
