// The words of the export and import pages in French.
import type { PortabilityMessages } from "./en.ts";

export const portabilityFr: PortabilityMessages = {
  back: "Retour",
  kinds: {
    following: "Abonnements",
    lists: "Listes",
    blocks: "Comptes bloqués",
    mutes: "Comptes masqués",
    domain_blocks: "Domaines bloqués",
    bookmarks: "Signets",
  },
  export: {
    title: "Exporter",
    lead: "Téléchargez vos abonnements, listes, blocages, comptes masqués, domaines bloqués et signets en fichiers CSV, au format de Mastodon, pour les emporter sur un autre serveur.",
    data: "Données",
    entries: "Entrées",
    download: "Télécharger le CSV",
  },
  archive: {
    title: "Archive de votre compte",
    lead: "Un fichier zip de vos messages et de leurs médias en ActivityPub (outbox.json, actor.json), de vos favoris (likes.json), de vos signets, de votre avatar et de votre bannière, comme Mastodon la fait. Vous pouvez en demander une tous les 7 jours ; vous recevez un e-mail quand elle est prête.",
    request: "Demander votre archive",
    failed: (date: string) =>
      `L’archive demandée le ${date} n’a pas pu être créée. Vous pouvez en demander une nouvelle.`,
    making: (done: number, total: number) => `En cours : ${done} messages sur ${total}.`,
    download: (date: string, size: string) => `Télécharger l’archive du ${date} (${size})`,
  },
  import: {
    title: "Importer",
    lead: "Envoyez un fichier CSV exporté depuis Mastodon ou un autre serveur. Les comptes d’autres serveurs y sont recherchés ; suivre un compte qui approuve ses abonnés devient une demande.",
    type: "Type de données",
    file: "Fichier CSV",
    mode: "Mode",
    merge: "Fusionner : garder ce que vous avez et ajouter ce que contient le fichier",
    overwrite: "Remplacer : remplacer ce que vous avez par ce que contient le fichier",
    submit: "Envoyer",
    started: "Votre import a commencé. Cette page montre où il en est.",
    history: "Vos imports",
    none: "Vous n’avez encore rien importé.",
    date: "Commencé",
    state: "État",
    progress: "Lignes traitées",
    failedRows: "Lignes en échec",
    states: { running: "En cours", pruning: "Retrait de ce que le fichier ne contient pas", finished: "Terminé" },
    modes: { merge: "Fusionner", overwrite: "Remplacer" },
    showFailures: "Voir les lignes en échec",
    failuresTitle: "Lignes en échec",
    row: "Ligne",
    entry: "Entrée",
    reason: "Raison",
  },
};
