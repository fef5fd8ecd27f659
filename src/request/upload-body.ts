import type { Readable } from 'node:stream';

/** One part of a multipart/form-data body, in the order the client sent them. */
export type UploadPart =
  /** A file: its bytes must be read (or drained) before the next part arrives. */
  | { readonly kind: 'file'; readonly name: string; readonly filename: string; readonly mimetype: string; readonly stream: Readable }
  | { readonly kind: 'field'; readonly name: string; readonly value: string };

/** What a multipart body may hold; larger is refused by the reader (413). */
export interface UploadLimits {
  /** Bytes of one file. */
  readonly fileBytes: number;
  /** Files in the body. */
  readonly files: number;
  /** Text fields in the body, and the bytes of each. */
  readonly fields: number;
  readonly fieldBytes: number;
}

/** A file part that went past `UploadLimits.fileBytes`: raised by its stream while it is read. */
export class UploadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${limit} bytes`);
  }
}

/**
 * A multipart/form-data request body (`ApiRequest.body`), read part by part as it arrives:
 * nothing is buffered before the action asks for it (http/multipart.ts makes it).
 */
export class UploadBody {
  constructor(readonly parts: (limits: UploadLimits) => AsyncIterable<UploadPart>) {}
}
