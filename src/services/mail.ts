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

function transportOf(rt: Runtime, url: string): Transporter {
  let transport = transports.get(rt);
  if (!transport) {
    transport = nodemailer().createTransport(url);
    transports.set(rt, transport);
  }
  return transport;
}

export async function deliverMail(rt: Runtime, mail: Mail): Promise<void> {
  const smtp = rt.config.smtp;
  if (!smtp) {
    logger("mail").info("Mail to {to} (no SMTP_URL set, so it is only logged): {subject}\n{text}", { ...mail });
    return;
  }
  await transportOf(rt, smtp.url).sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text });
}

/** Connects to the SMTP server and signs in, sending nothing (`rookery doctor`); throws what went wrong. */
export async function verifyMailServer(rt: Runtime): Promise<void> {
  if (rt.config.smtp) await transportOf(rt, rt.config.smtp.url).verify();
}
