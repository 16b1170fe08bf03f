/** DGII's HTTP protocol: the client, the TaxAuthority adapter over it, and multipart/form-data. */
export { DgiiClient, NO_CERTIFICATE_MESSAGE } from './client.ts';
export type { DgiiClientOptions, DgiiCredentials, EstadoQuery, RfceQuery, XmlUpload } from './client.ts';
export type { AprobacionAnswer, ConsultaEstadoAnswer, DirectoryEntry } from './exchange-answers.ts';
export { DgiiAuthority } from './dgii-authority.ts';
export type { AnulacionAnswer, DgiiMessage, EstadoAnswer, RecepcionAnswer, RfceAnswer, TokenAnswer, TrackIdEntry } from './answers.ts';
export { DEFAULT_MULTIPART_LIMITS, encodeMultipartFile, findFilePart, multipartBoundary, MultipartError, parseMultipart } from './multipart.ts';
export type { EncodedMultipart, MultipartLimits, MultipartPart } from './multipart.ts';
export { annulmentFileName, DGII_BASE_URLS, DGII_FC_BASE_URLS, DGII_PATHS, documentFileName, ESTADO_CODES, XML_FIELD } from './paths.ts';
export type { DgiiService, EstadoCode } from './paths.ts';
