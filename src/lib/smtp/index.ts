export { isMailAddress, MAX_ADDRESS_LENGTH } from './address.ts';
export { buildMessage, encodedWords, MailAddressError, type Attachment, type Mailbox, type MailMessage } from './mime.ts';
export { dotStuff, sendMail, SmtpError, type SendOptions } from './client.ts';
export { describeTarget, isLoopbackHost, parseSmtpUrl, SmtpUrlError, type SmtpTarget } from './target.ts';
