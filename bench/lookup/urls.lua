-- wrk script: each request asks /api/v1/captures for a URL of the list in URLS (urls.txt):
-- a random one, or with CYCLE=1 each in turn (each thread from its own place in the list).
local urls = {}
local path = os.getenv("URLS") or "urls.txt"
for line in io.lines(path) do urls[#urls + 1] = line end
local cycle = os.getenv("CYCLE") == "1"
math.randomseed(os.time())
local i = math.random(#urls)

request = function()
  local u
  if cycle then
    i = i % #urls + 1
    u = urls[i]
  else
    u = urls[math.random(#urls)]
  end
  return wrk.format("GET", "/api/v1/captures?url=" .. u)
end
