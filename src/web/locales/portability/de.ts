// The words of the export and import pages in German.
import type { PortabilityMessages } from "./en.ts";

export const portabilityDe: PortabilityMessages = {
  back: "Zurück",
  kinds: {
    following: "Gefolgte Konten",
    lists: "Listen",
    blocks: "Blockierte Konten",
    mutes: "Stummgeschaltete Konten",
    domain_blocks: "Blockierte Domains",
    bookmarks: "Lesezeichen",
  },
  export: {
    title: "Export",
    lead: "Lade deine gefolgten Konten, Listen, Blockierungen, Stummschaltungen, blockierten Domains und Lesezeichen als CSV-Dateien im Format von Mastodon herunter, um sie auf einen anderen Server mitzunehmen.",
    data: "Daten",
    entries: "Einträge",
    download: "CSV herunterladen",
  },
  archive: {
    title: "Archiv deines Kontos",
    lead: "Eine ZIP-Datei mit deinen Beiträgen und ihren Medien als ActivityPub (outbox.json, actor.json), deinen Favoriten (likes.json), deinen Lesezeichen, Profilbild und Titelbild, wie Mastodon sie erstellt. Du kannst alle 7 Tage eines anfordern; du bekommst eine E-Mail, wenn es fertig ist.",
    request: "Archiv anfordern",
    failed: (date: string) =>
      `Das am ${date} angeforderte Archiv konnte nicht erstellt werden. Du kannst ein neues anfordern.`,
    making: (done: number, total: number) => `Wird erstellt: ${done} von ${total} Beiträgen.`,
    download: (date: string, size: string) => `Archiv vom ${date} herunterladen (${size})`,
  },
  import: {
    title: "Import",
    lead: "Lade eine CSV-Datei hoch, die aus Mastodon oder einem anderen Server exportiert wurde. Konten anderer Server werden dort nachgeschlagen; Konten, die ihre Follower selbst bestätigen, erhalten eine Folgeanfrage.",
    type: "Art der Daten",
    file: "CSV-Datei",
    mode: "Modus",
    merge: "Zusammenführen: behalten, was du hast, und ergänzen, was die Datei enthält",
    overwrite: "Überschreiben: ersetzen, was du hast, durch das, was die Datei enthält",
    submit: "Hochladen",
    started: "Dein Import hat begonnen. Diese Seite zeigt, wie weit er ist.",
    history: "Deine Importe",
    none: "Du hast noch nichts importiert.",
    date: "Begonnen",
    state: "Status",
    progress: "Erledigte Zeilen",
    failedRows: "Fehlgeschlagene Zeilen",
    states: { running: "Läuft", pruning: "Entfernt, was nicht in der Datei steht", finished: "Fertig" },
    modes: { merge: "Zusammenführen", overwrite: "Überschreiben" },
    showFailures: "Fehlgeschlagene Zeilen zeigen",
    failuresTitle: "Fehlgeschlagene Zeilen",
    row: "Zeile",
    entry: "Eintrag",
    reason: "Grund",
  },
};
