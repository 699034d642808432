// The JSON a push carries, as Mastodon's Web::NotificationSerializer makes it: the app's access token
// (to fetch the notification), the recipient's language, the notification's id and type, the
// sender's avatar, a title in the recipient's language and up to 140 characters of text.

import type { PushNotification, PushTarget } from "../services/push/delivery.ts";
import type { AccountEntity } from "./account.ts";
import { exactInteger } from "./json_text.ts";

type Titles = Partial<Record<string, (name: string) => string>> & { fallback: (name: string) => string };

const TITLES: Record<string, Titles> = {
  en: {
    mention: (name) => `You were mentioned by ${name}`,
    status: (name) => `${name} just posted`,
    reblog: (name) => `${name} boosted your post`,
    follow: (name) => `${name} is now following you`,
    follow_request: (name) => `Pending follower: ${name}`,
    favourite: (name) => `${name} favorited your post`,
    poll: (name) => `A poll by ${name} has ended`,
    update: (name) => `${name} edited a post`,
    quote: (name) => `${name} quoted your post`,
    quoted_update: (name) => `${name} edited a post you quoted`,
    "admin.sign_up": (name) => `${name} signed up`,
    "admin.report": (name) => `${name} submitted a report`,
    fallback: (name) => `New notification from ${name}`,
  },
  de: {
    mention: (name) => `${name} hat dich erwähnt`,
    status: (name) => `${name} hat gerade etwas veröffentlicht`,
    reblog: (name) => `${name} hat deinen Beitrag geteilt`,
    follow: (name) => `${name} folgt dir jetzt`,
    follow_request: (name) => `Folgeanfrage von ${name}`,
    favourite: (name) => `${name} hat deinen Beitrag favorisiert`,
    poll: (name) => `Eine Umfrage von ${name} ist beendet`,
    update: (name) => `${name} hat einen Beitrag bearbeitet`,
    quote: (name) => `${name} hat deinen Beitrag zitiert`,
    quoted_update: (name) => `${name} hat einen Beitrag bearbeitet, den du zitiert hast`,
    "admin.sign_up": (name) => `${name} hat sich registriert`,
    "admin.report": (name) => `${name} hat eine Meldung eingereicht`,
    fallback: (name) => `Neue Benachrichtigung von ${name}`,
  },
  fr: {
    mention: (name) => `${name} vous a mentionné·e`,
    status: (name) => `${name} vient de publier`,
    reblog: (name) => `${name} a partagé votre message`,
    follow: (name) => `${name} vous suit désormais`,
    follow_request: (name) => `Demande d’abonnement de ${name}`,
    favourite: (name) => `${name} a ajouté votre message à ses favoris`,
    poll: (name) => `Un sondage de ${name} est terminé`,
    update: (name) => `${name} a modifié un message`,
    quote: (name) => `${name} a cité votre message`,
    quoted_update: (name) => `${name} a modifié un message que vous avez cité`,
    "admin.sign_up": (name) => `${name} s’est inscrit·e`,
    "admin.report": (name) => `${name} a envoyé un signalement`,
    fallback: (name) => `Nouvelle notification de ${name}`,
  },
  es: {
    mention: (name) => `${name} te ha mencionado`,
    status: (name) => `${name} acaba de publicar`,
    reblog: (name) => `${name} ha impulsado tu publicación`,
    follow: (name) => `${name} te sigue ahora`,
    follow_request: (name) => `Solicitud de seguimiento de ${name}`,
    favourite: (name) => `${name} ha marcado tu publicación como favorita`,
    poll: (name) => `Ha terminado una encuesta de ${name}`,
    update: (name) => `${name} ha editado una publicación`,
    quote: (name) => `${name} ha citado tu publicación`,
    quoted_update: (name) => `${name} ha editado una publicación que citaste`,
    "admin.sign_up": (name) => `${name} se ha registrado`,
    "admin.report": (name) => `${name} ha enviado una denuncia`,
    fallback: (name) => `Nueva notificación de ${name}`,
  },
};

const BODY_LENGTH = 140;

export function pushTitle(locale: string, type: string, name: string): string {
  const titles = TITLES[locale.toLowerCase().split(/[-_]/)[0]] ?? TITLES.en;
  return (titles[type] ?? titles.fallback)(name);
}

/** Rails' truncate: at most 140 characters, the last three "..." when cut. */
function truncate(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= BODY_LENGTH ? chars.join("") : `${chars.slice(0, BODY_LENGTH - 3).join("")}...`;
}

export function renderWebPushNotification(n: PushNotification, target: PushTarget, sender: AccountEntity): string {
  return JSON.stringify({
    access_token: target.accessToken,
    preferred_locale: target.locale,
    // A number, as Mastodon sends it (apps decode an integer), written exactly though beyond 2^53.
    notification_id: exactInteger(n.id),
    notification_type: n.type,
    icon: sender.avatar_static,
    title: pushTitle(target.locale, n.type, n.senderName),
    body: truncate(n.text),
  });
}
