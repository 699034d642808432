// The words of the web pages in French.
import { html } from "hono/html";
import type { Html } from "../layout.ts";
import { adminFr } from "./admin/fr.ts";
import type { Messages } from "./en.ts";

export const fr: Messages = {
  signIn: {
    title: "Se connecter",
    email: "Adresse e-mail",
    password: "Mot de passe",
    submit: "Se connecter",
    invalid: "Adresse e-mail ou mot de passe incorrect.",
    expired: "Ce formulaire a expiré. Veuillez réessayer.",
    throttled: "Trop de tentatives. Veuillez réessayer plus tard.",
  },
  consent: {
    title: "Autoriser",
    heading: (app: string) => `Autoriser ${app} ?`,
    lead: (app: Html, user: Html): Html =>
      html`${app} souhaite utiliser votre compte ${user}. Cette application pourra :`,
    authorize: "Autoriser",
    deny: "Refuser",
    notYou: "Ce n’est pas vous ?",
  },
  code: {
    title: "Code d’autorisation",
    lead: (app: string) => `Copiez ce code et collez-le dans ${app} :`,
  },
  formPost: { title: "Continuer", submit: "Continuer" },
  signOut: { button: "Se déconnecter", title: "Déconnecté", done: "Vous êtes déconnecté." },
  blocked: {
    title: "Vous ne pouvez pas encore autoriser d’applications",
    unconfirmed: "Votre adresse e-mail n’est pas encore confirmée",
    pending: "Votre compte est en attente d’approbation",
    disabled: "Votre compte est actuellement désactivé",
  },
  error: {
    title: "Une erreur est survenue",
    signInFirst: "Vous devez d’abord vous connecter.",
    expired: "Ce formulaire a expiré. Revenez en arrière et réessayez.",
    denied: "Vous avez refusé l’autorisation.",
  },
  scopes: {
    read: "Lire toutes les données de votre compte",
    write: "Modifier toutes les données de votre compte",
    follow: "Suivre, bloquer et masquer des comptes (anciennes applications)",
    push: "Recevoir vos notifications push",
    profile: "Lire uniquement les informations de votre profil",
    "admin:read": "Lire toutes les données du serveur",
    "admin:write": "Modérer et modifier les données du serveur",
    "read:search": "Effectuer des recherches en votre nom",
    "write:media": "Téléverser des fichiers multimédias",
    "write:reports": "Signaler des comptes et des messages",
  },
  granular: {
    read: (what: string) => `Voir vos ${what}`,
    write: (what: string) => `Modifier vos ${what}`,
    "admin:read": (what: string) => `Voir les ${what} du serveur`,
    "admin:write": (what: string) => `Modérer les ${what} du serveur`,
  },
  things: {
    accounts: "informations de compte",
    blocks: "blocages",
    bookmarks: "signets",
    collections: "collections",
    conversations: "conversations",
    favourites: "favoris",
    filters: "filtres",
    follows: "abonnements",
    lists: "listes",
    mutes: "comptes masqués",
    notifications: "notifications",
    reports: "signalements",
    statuses: "messages",
    canonical_email_blocks: "adresses e-mail bloquées",
    domain_allows: "domaines autorisés",
    domain_blocks: "domaines bloqués",
    email_domain_blocks: "domaines e-mail bloqués",
    ip_blocks: "adresses IP bloquées",
  },
  admin: adminFr,
};
