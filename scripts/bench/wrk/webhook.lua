-- POSTs what the service sends a webhook receiver: a signed ecf.status_update body with
-- the service's headers (the receiver's ceiling, measured without the service).
local body = '{"event":"ecf.status_update","internalTrackId":"0b6f1a52-3c1e-4f0e-9d4c-6a8e2f1b7c90","encf":"E310000000001","estado":"recibido","dgiiCode":null,"dgiiMessage":null,"trackId":null,"timestamp":"2026-01-01T00:00:00.000Z"}'

function request()
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["User-Agent"] = "ecf-service-webhooks/0.1.0",
    ["X-ECF-Tenant-Id"] = "1",
    ["X-ECF-Event"] = "ecf.status_update",
    ["X-ECF-Delivery-Id"] = "7d7c1e0a-4d7b-4b8e-a1f3-2c9d0e6b5a41",
    ["X-ECF-Delivery-Attempt"] = "1",
    ["X-ECF-Signature"] = "sha256=3f1d5a0c9b8e7f6a5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f7e6d",
  }, body)
end
