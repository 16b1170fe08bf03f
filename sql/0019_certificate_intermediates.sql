-- The intermediate certificates of an uploaded PKCS#12 (the leaf's issuers, roots left out),
-- so that the service's signatures carry them in KeyInfo after the leaf and a verifier can build
-- the path to its trusted root. Sealed like the leaf (AES-256-GCM, tenant and row id bound) as a
-- JSON array of base64 DER. Null for certificates uploaded before: they sign with the leaf alone
-- until uploaded again.
alter table certificates add column chain_sealed bytea;
