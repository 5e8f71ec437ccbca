-- wrk script of bench/load.sh: GET the public pages listed in a file (one path per line:
-- home, tournaments, standings, rounds, ranking, player pages), rotating over them; each wrk
-- thread starts at a different page. At the end, one summary in lines starting "LOAD".
--
--   wrk -t4 -c50 -d60s --latency -s bench/load.lua http://127.0.0.1:PORT -- paths.txt

local paths = {}
local counter = 0
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  local file = args[1] or "paths.txt"
  for line in io.lines(file) do
    if line ~= "" then
      paths[#paths + 1] = line
    end
  end
  assert(#paths > 0, "no paths in " .. file)
  counter = ((thread_id or 1) * 7) % #paths
end

function request()
  counter = counter % #paths + 1
  return wrk.format("GET", paths[counter])
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  local socket = e.connect + e.read + e.write + e.timeout
  io.write(string.format("LOAD requests=%d duration_s=%.1f rps=%.1f\n",
    summary.requests, seconds, summary.requests / seconds))
  io.write(string.format(
    "LOAD latency_ms p50=%.1f p75=%.1f p90=%.1f p99=%.1f p99.9=%.1f max=%.1f mean=%.1f\n",
    latency:percentile(50) / 1000, latency:percentile(75) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency:percentile(99.9) / 1000, latency.max / 1000,
    latency.mean / 1000))
  io.write(string.format(
    "LOAD errors total=%d non_2xx_3xx=%d socket=%d (connect=%d read=%d write=%d timeout=%d)\n",
    e.status + socket, e.status, socket, e.connect, e.read, e.write, e.timeout))
end
