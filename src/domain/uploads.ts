// A file sent with a request (a multipart part with a filename, or a base64 `data:` URI).
// Its bytes are a view of the request body, never a copy: a 4 MB photo read into a Blob and out
// again was two more 4 MB copies per upload, and garbage that brought the next full collection closer.
// A large body is given back when its request ends (releaseBody): an upload lives no longer.
export class Upload {
  readonly bytes: Buffer;
  /** The file name the client gave (never trusted for anything but display). */
  readonly name: string;
  /** The type the client declared (never trusted: what a file is comes from its bytes). */
  readonly type: string;

  constructor(bytes: Buffer, name: string, type: string) {
    this.bytes = bytes;
    this.name = name;
    this.type = type;
  }

  get size(): number {
    return this.bytes.byteLength;
  }
}
