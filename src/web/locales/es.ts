// The words of the web pages in Spanish.
import { html } from "hono/html";
import type { Html } from "../layout.ts";
import { adminEs } from "./admin/es.ts";
import type { Messages } from "./en.ts";

export const es: Messages = {
  signIn: {
    title: "Iniciar sesión",
    email: "Correo electrónico",
    password: "Contraseña",
    submit: "Iniciar sesión",
    invalid: "Correo electrónico o contraseña incorrectos.",
    expired: "Este formulario ha caducado. Inténtalo de nuevo.",
    throttled: "Demasiados intentos. Inténtalo más tarde.",
  },
  consent: {
    title: "Autorizar",
    heading: (app: string) => `¿Autorizar ${app}?`,
    lead: (app: Html, user: Html): Html => html`${app} quiere usar tu cuenta ${user}. Podrá:`,
    authorize: "Autorizar",
    deny: "Denegar",
    notYou: "¿No eres tú?",
  },
  code: {
    title: "Código de autorización",
    lead: (app: string) => `Copia este código y pégalo en ${app}:`,
  },
  formPost: { title: "Continuar", submit: "Continuar" },
  signOut: { button: "Cerrar sesión", title: "Sesión cerrada", done: "Has cerrado la sesión." },
  blocked: {
    title: "Todavía no puedes autorizar aplicaciones",
    unconfirmed: "Tu correo electrónico aún no está confirmado",
    pending: "Tu cuenta está pendiente de aprobación",
    disabled: "Tu cuenta está desactivada",
  },
  error: {
    title: "Se ha producido un error",
    signInFirst: "Primero tienes que iniciar sesión.",
    expired: "Este formulario ha caducado. Vuelve atrás e inténtalo de nuevo.",
    denied: "Has denegado la autorización.",
  },
  scopes: {
    read: "Leer todos los datos de tu cuenta",
    write: "Modificar todos los datos de tu cuenta",
    follow: "Seguir, bloquear y silenciar cuentas (aplicaciones antiguas)",
    push: "Recibir tus notificaciones push",
    profile: "Leer solo la información de tu perfil",
    "admin:read": "Leer todos los datos del servidor",
    "admin:write": "Moderar y modificar los datos del servidor",
    "read:search": "Buscar en tu nombre",
    "write:media": "Subir archivos multimedia",
    "write:reports": "Denunciar cuentas y publicaciones",
  },
  granular: {
    read: (what: string) => `Ver tus ${what}`,
    write: (what: string) => `Modificar tus ${what}`,
    "admin:read": (what: string) => `Ver ${what} del servidor`,
    "admin:write": (what: string) => `Moderar ${what} del servidor`,
  },
  things: {
    accounts: "datos de cuenta",
    blocks: "bloqueos",
    bookmarks: "marcadores",
    collections: "colecciones",
    conversations: "conversaciones",
    favourites: "favoritos",
    filters: "filtros",
    follows: "seguimientos",
    lists: "listas",
    mutes: "silenciados",
    notifications: "notificaciones",
    reports: "denuncias",
    statuses: "publicaciones",
    canonical_email_blocks: "correos electrónicos bloqueados",
    domain_allows: "dominios permitidos",
    domain_blocks: "dominios bloqueados",
    email_domain_blocks: "dominios de correo bloqueados",
    ip_blocks: "direcciones IP bloqueadas",
  },
  admin: adminEs,
};
