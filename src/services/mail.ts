// Outgoing mail, sent by a job so that a slow or failing mail server never holds up a request.
// Without SMTP_URL, mails are written to the log (the operator can copy a confirmation link from it).
import type { Transporter } from "nodemailer";
import type { Db } from "../db/index.ts";
import { lazy } from "../lazy.ts";
import { logger } from "../log.ts";
import type { Runtime } from "../runtime.ts";

const nodemailer = lazy<typeof import("nodemailer")>("nodemailer");

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

declare module "../jobs/queue.ts" {
  interface JobPayloads {
    "mail.send": Mail;
  }
}

/** Queues a mail, in the caller's transaction. */
export async function queueMail(rt: Runtime, db: Db, mail: Mail): Promise<void> {
  await rt.queue.enqueue("mail.send", mail, { maxAttempts: 10 }, db);
}

const transports = new WeakMap<Runtime, Transporter>();

export async function deliverMail(rt: Runtime, mail: Mail): Promise<void> {
  const smtp = rt.config.smtp;
  if (!smtp) {
    logger("mail").info("Mail to {to} (no SMTP_URL set, so it is only logged): {subject}\n{text}", { ...mail });
    return;
  }
  let transport = transports.get(rt);
  if (!transport) {
    transport = nodemailer().createTransport(smtp.url);
    transports.set(rt, transport);
  }
  await transport.sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text });
}
