-- The periodic job repair (src/maintenance/repair.ts) looks for work that needs a job and has
-- none: pending webhook deliveries, documents waiting to be sent or for DGII's verdict. These
-- rows are few while the tables keep every delivery and document ever made, so each search
-- reads a partial index of just those rows, whatever the tenant.
create index webhook_deliveries_pending_idx on webhook_deliveries (seq) where status = 'pending';
create index documents_in_flight_idx on documents (estado, seq) where estado in ('recibido', 'en_proceso');
