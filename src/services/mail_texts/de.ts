// Die Mails zum eigenen Konto, auf Deutsch.
import type { MailTexts } from "./en.ts";

export const mailDe: MailTexts = {
  passwordReset: {
    subject: (site) => `Passwort für ${site} zurücksetzen`,
    text: (site, link, hours) =>
      `Jemand möchte das Passwort deines Kontos auf ${site} zurücksetzen.\n\nUm ein neues Passwort zu wählen, öffne diesen Link innerhalb von ${hours} Stunden (er funktioniert einmal):\n${link}\n\nWarst du es nicht, ignoriere diese Mail: dein Passwort bleibt, wie es ist.\n`,
  },
  emailChangeConfirm: {
    subject: (site) => `Bestätige deine neue E-Mail-Adresse auf ${site}`,
    text: (site, link) =>
      `Du möchtest diese Adresse für dein Konto auf ${site} verwenden.\n\nUm sie zu bestätigen, öffne:\n${link}\n\nBis dahin meldest du dich weiter mit deiner alten Adresse an. Warst du es nicht, ignoriere diese Mail.\n`,
  },
  emailChanged: {
    subject: (site) => `Deine E-Mail-Adresse auf ${site} wird geändert`,
    text: (site, newEmail) =>
      `Die E-Mail-Adresse deines Kontos auf ${site} wird zu ${newEmail} geändert, sobald die neue Adresse bestätigt ist.\n\nWarst du es nicht, ändere sofort dein Passwort und wende dich an das Team des Servers.\n`,
  },
  twoFactorEnabled: {
    subject: (site) => `Zwei-Faktor-Anmeldung für ${site} ist an`,
    text: (site) =>
      `Die Zwei-Faktor-Anmeldung ist jetzt für dein Konto auf ${site} an: die Anmeldung fragt nach einem Code aus deiner Authenticator-App.\n\nWarst du es nicht, wende dich an das Team des Servers.\n`,
  },
  twoFactorDisabled: {
    subject: (site) => `Zwei-Faktor-Anmeldung für ${site} ist aus`,
    text: (site) =>
      `Die Zwei-Faktor-Anmeldung ist jetzt für dein Konto auf ${site} aus: das Passwort allein genügt wieder.\n\nWarst du es nicht, ändere sofort dein Passwort und wende dich an das Team des Servers.\n`,
  },
  newSignIn: {
    subject: (site) => `Eine neue Anmeldung bei deinem Konto auf ${site}`,
    text: (site, when, ip, device) =>
      `Bei deinem Konto auf ${site} hat sich jemand von einer Adresse oder einem Gerät angemeldet, die noch nie gesehen wurden:\n\nZeit: ${when}\nAdresse: ${ip}\nGerät: ${device}\n\nWarst du es, ist nichts zu tun. Sonst ändere sofort dein Passwort und beende in den Einstellungen deines Kontos die Sitzungen, die du nicht kennst.\n`,
  },
  confirmation: {
    subject: (site) => `Bestätige deine E-Mail-Adresse für ${site}`,
    text: (site, link) =>
      `Willkommen auf ${site}!\n\nUm diese E-Mail-Adresse zu bestätigen, öffne:\n${link}\n\nHast du dich nicht registriert, ignoriere diese Mail.\n`,
  },
  archiveReady: {
    subject: () => "Dein Archiv kann heruntergeladen werden",
    text: (site, user, link) =>
      `Hallo ${user},\n\ndas Archiv deines Kontos auf ${site} ist fertig. Du kannst es hier herunterladen:\n${link}\n`,
  },
  warning: {
    actions: {
      none: "Du hast eine Verwarnung erhalten",
      sensitive: "Deine Medien werden von nun an mit einer Inhaltswarnung versehen",
      disable: "Dein Konto wurde eingefroren",
      silence: "Dein Konto wurde eingeschränkt",
      suspend: "Dein Konto wurde gesperrt",
    },
    subject: (site, action) => `${action} (${site})`,
    text: (site, action, note) => `${action} (${site}).\n${note ? `\nHinweis der Moderation:\n${note}\n` : ""}`,
  },
};
