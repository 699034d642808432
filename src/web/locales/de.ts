// The words of the web pages in German.
import { html } from "hono/html";
import type { Html } from "../layout.ts";
import { adminDe } from "./admin/de.ts";
import type { Messages } from "./en.ts";

export const de: Messages = {
  signIn: {
    title: "Anmelden",
    email: "E-Mail-Adresse",
    password: "Passwort",
    submit: "Anmelden",
    invalid: "E-Mail-Adresse oder Passwort ist falsch.",
    expired: "Dieses Formular ist abgelaufen. Bitte versuche es erneut.",
    throttled: "Zu viele Versuche. Bitte versuche es später erneut.",
  },
  consent: {
    title: "Autorisieren",
    heading: (app: string) => `${app} autorisieren?`,
    lead: (app: Html, user: Html): Html => html`${app} möchte dein Konto ${user} verwenden. Die App darf dann:`,
    authorize: "Autorisieren",
    deny: "Ablehnen",
    notYou: "Nicht du?",
  },
  code: {
    title: "Autorisierungscode",
    lead: (app: string) => `Kopiere diesen Code und füge ihn in ${app} ein:`,
  },
  formPost: { title: "Weiter", submit: "Weiter" },
  signOut: { button: "Abmelden", title: "Abgemeldet", done: "Du hast dich abgemeldet." },
  blocked: {
    title: "Du kannst noch keine Apps autorisieren",
    unconfirmed: "Deine E-Mail-Adresse ist noch nicht bestätigt",
    pending: "Dein Konto wartet noch auf Freigabe",
    disabled: "Dein Konto ist derzeit deaktiviert",
  },
  error: {
    title: "Ein Fehler ist aufgetreten",
    signInFirst: "Du musst dich zuerst anmelden.",
    expired: "Dieses Formular ist abgelaufen. Geh zurück und versuche es erneut.",
    denied: "Du hast die Autorisierung abgelehnt.",
  },
  scopes: {
    read: "Alle Daten deines Kontos lesen",
    write: "Alle Daten deines Kontos ändern",
    follow: "Konten folgen, sie blockieren und stummschalten (ältere Apps)",
    push: "Deine Push-Benachrichtigungen empfangen",
    profile: "Nur deine Profilinformationen lesen",
    "admin:read": "Alle Daten auf dem Server lesen",
    "admin:write": "Daten auf dem Server moderieren und ändern",
    "read:search": "In deinem Namen suchen",
    "write:media": "Mediendateien hochladen",
    "write:reports": "Konten und Beiträge melden",
  },
  granular: {
    read: (what: string) => `Deine ${what} sehen`,
    write: (what: string) => `Deine ${what} ändern`,
    "admin:read": (what: string) => `Die ${what} des Servers sehen`,
    "admin:write": (what: string) => `Die ${what} des Servers moderieren`,
  },
  things: {
    accounts: "Kontoinformationen",
    blocks: "Blockierungen",
    bookmarks: "Lesezeichen",
    collections: "Sammlungen",
    conversations: "Unterhaltungen",
    favourites: "Favoriten",
    filters: "Filter",
    follows: "gefolgten Konten",
    lists: "Listen",
    mutes: "Stummschaltungen",
    notifications: "Benachrichtigungen",
    reports: "Meldungen",
    statuses: "Beiträge",
    canonical_email_blocks: "gesperrten E-Mail-Adressen",
    domain_allows: "erlaubten Domains",
    domain_blocks: "gesperrten Domains",
    email_domain_blocks: "gesperrten E-Mail-Domains",
    ip_blocks: "gesperrten IP-Adressen",
  },
  admin: adminDe,
};
