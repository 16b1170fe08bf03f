-- POST /{env}/documentos-ecf with a fresh Idempotency-Key on every request, rotating over
-- the tenants of the file named by BENCH_EMIT_TENANTS (one "<api key>\t<json body>" a line).
-- A body holding E31XXXXXXXXXX gets a fresh eNCF there (BENCH_ENCF_BASE + a counter), for
-- runs where the client numbers its documents itself.
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_id", thread_count)
end

local tenants = {}
local counter = 0
local prefix
local encf_base

function init(args)
  for line in io.lines(os.getenv("BENCH_EMIT_TENANTS")) do
    local key, body = line:match("^([^\t]+)\t(.+)$")
    tenants[#tenants + 1] = { key = key, body = body }
  end
  prefix = os.getenv("BENCH_RUN_ID") .. "-" .. tostring(thread_id or 1) .. "-"
  encf_base = tonumber(os.getenv("BENCH_ENCF_BASE") or "0") + (thread_id or 1) * 10000000
end

function request()
  counter = counter + 1
  local t = tenants[(counter % #tenants) + 1]
  local body = t.body:gsub("E31XXXXXXXXXX", string.format("E31%010d", encf_base + counter), 1)
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["X-API-KEY"] = t.key,
    ["Idempotency-Key"] = prefix .. counter,
  }, body)
end
