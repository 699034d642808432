// An SMTP server on loopback that keeps what it receives: tests read the mails Rookery sends.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The subject, its encoded words (RFC 2047) decoded. */
  subject: string;
  /** The mail with its body decoded (quoted-printable or base64), as UTF-8. */
  text: string;
}

/** Quoted-printable undone: soft line breaks removed, `=XX` escapes turned back into bytes. */
function undoQuotedPrintable(text: string): Buffer {
  const bytes: Buffer[] = [];
  const soft = text.replace(/=\r?\n/g, "");
  let from = 0;
  for (const m of soft.matchAll(/=([0-9A-F]{2})/g)) {
    bytes.push(Buffer.from(soft.slice(from, m.index)), Buffer.from([Number.parseInt(m[1], 16)]));
    from = m.index + 3;
  }
  bytes.push(Buffer.from(soft.slice(from)));
  return Buffer.concat(bytes);
}

function decodeBody(raw: string): string {
  const split = raw.indexOf("\r\n\r\n");
  const [head, body] = split < 0 ? [raw, ""] : [raw.slice(0, split), raw.slice(split + 4)];
  const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(head)?.[1].toLowerCase();
  const decoded =
    encoding === "base64"
      ? Buffer.from(body, "base64").toString()
      : encoding === "quoted-printable"
        ? undoQuotedPrintable(body).toString()
        : body;
  return `${head}\r\n\r\n${decoded}`;
}

function decodeSubject(raw: string): string {
  const folded = /^Subject:(.*(?:\r\n[ \t].*)*)/im.exec(raw)?.[1] ?? "";
  return folded
    .replace(/\r\n[ \t]/g, " ")
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_, kind: string, word: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(word, "base64").toString()
        : undoQuotedPrintable(word.replace(/_/g, " ")).toString(),
    )
    .trim();
}

export async function startMailbox() {
  const mails: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString();
        const to = session.envelope.rcptTo.map((r) => r.address);
        mails.push({ to, raw, subject: decodeSubject(raw), text: decodeBody(raw) });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Resolves with the first mail to `address`, waiting for it if needed. */
    async mailTo(address: string): Promise<ReceivedMail> {
      for (;;) {
        const found = mails.find((m) => m.to.includes(address));
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
