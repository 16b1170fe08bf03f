-- Whether the certificate that signed the commercial approval (ACECF) shown on an issued
-- document chains to a trusted CA (commercial_approvals.signer_trust = 'trusted'), shown with it
-- and in its ecf.commercial_approval event: a forged approval in TesteCF/CerteCF must not look
-- like a real one. Null while the document has no approval.
alter table documents add column aprobacion_signer_trusted boolean;
update documents d set aprobacion_signer_trusted = (ca.signer_trust = 'trusted')
from commercial_approvals ca where ca.document_id = d.id;
