-- Each tenant's logo, printed on its e-CF (src/documents/logo.ts): the file as uploaded, checked,
-- and the image as the PDF writer embeds it, made once at upload so printing never decodes it.
create table tenant_logos (
  tenant_id integer primary key references tenants (id),
  media_type text not null check (media_type in ('image/png', 'image/jpeg')),
  data bytea not null,
  width integer not null,
  height integer not null,
  pdf_color_space text not null check (pdf_color_space in ('DeviceGray', 'DeviceRGB')),
  pdf_filter text not null check (pdf_filter in ('DCTDecode', 'FlateDecode')),
  -- The image stream, and its soft mask (8-bit alpha, Flate) when it has transparency.
  pdf_data bytea not null,
  pdf_alpha bytea,
  updated_at timestamptz not null default now()
);
