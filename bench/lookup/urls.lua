-- wrk script: each request asks /api/v1/captures for a random URL of the list in URLS (urls.txt).
local urls = {}
local path = os.getenv("URLS") or "urls.txt"
for line in io.lines(path) do urls[#urls + 1] = line end
math.randomseed(os.time())

request = function()
  local u = urls[math.random(#urls)]
  return wrk.format("GET", "/api/v1/captures?url=" .. u)
end
