// A postulación as DGII's certification portal hands it out ("Crear Postulación", downloaded as
// XML): the shape of the file the portal produces, for the tenant `rnc`.
export function postulacionXml(rnc: string, extra = ''): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<Postulacion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <PostulacionID>48213</PostulacionID>
  <TipoRegistro>1</TipoRegistro>
  <GrupoComprobante>31,32,33,34,41,43,44,45,46,47</GrupoComprobante>
  <Contribuyente>
    <RNCContribuyente>${rnc}</RNCContribuyente>
    <RazonSocial>FERRETERÍA OCHOA &amp; HIJOS SRL</RazonSocial>
    <NombreComercial>FERRETERÍA OCHOA</NombreComercial>
    <ActividadEconomica>475200</ActividadEconomica>
    <Telefono>8095551234</Telefono>
    <Direccion>AV. 27 DE FEBRERO No. 100</Direccion>
    <Provincia>DISTRITO NACIONAL</Provincia>
    <Municipio>SANTO DOMINGO DE GUZMÁN</Municipio>
    <Sector>NACO</Sector>
    <CorreoElectronico>facturacion@ochoa.com.do</CorreoElectronico>
  </Contribuyente>
  <Representante>
    <RNCRepresentante>00112345678</RNCRepresentante>
    <NombreRepresentante>MARÍA OCHOA</NombreRepresentante>
  </Representante>
  <Software>
    <TipoDesarrollo>0</TipoDesarrollo>
    <NombreSoftware>ecf-service</NombreSoftware>
    <UrlRecepcion>https://ecf.ochoa.com.do/CerteCF/receptor/${rnc}</UrlRecepcion>
    <UrlAprobacionComercial>https://ecf.ochoa.com.do/CerteCF/receptor/${rnc}</UrlAprobacionComercial>
    <VersionSoftware>0.1.0</VersionSoftware>
  </Software>${extra}
  <FechaSolicitud>2026-11-27T10:00:00.0000000-04:00</FechaSolicitud>
</Postulacion>
`;
}
