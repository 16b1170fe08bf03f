-- Whether a configured certification authority vouched for the certificate that signed a
-- received e-CF or commercial approval (ACECF): 'trusted', or 'untrusted' when it was
-- accepted without one (TesteCF and CerteCF with no RECEIVER_TRUSTED_CA_FILE, or there a CRL
-- that could not be had). Rows received before the check existed are 'unverified'.
alter table received_documents add column signer_trust text not null default 'unverified'
  check (signer_trust in ('trusted', 'untrusted', 'unverified'));
alter table commercial_approvals add column signer_trust text not null default 'unverified'
  check (signer_trust in ('trusted', 'untrusted', 'unverified'));
