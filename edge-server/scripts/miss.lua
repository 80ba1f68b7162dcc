-- wrk script for the cache-miss cases: every request a new path (/miss/<thread>-<time>-<n>/<file>),
-- which the origin maps back to one bench file, so each request misses both caches.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function init(args)
  prefix = tid .. "-" .. os.time() .. "-" .. math.random(1, 1000000) .. "-"
  counter = 0
  file = os.getenv("BENCH_MISS_FILE") or "seg-2m.m4s"
end
function request()
  counter = counter + 1
  return wrk.format("GET", "/miss/" .. prefix .. counter .. "/" .. file)
end
