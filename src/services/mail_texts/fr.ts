// Les courriels sur son propre compte, en français.
import type { MailTexts } from "./en.ts";

export const mailFr: MailTexts = {
  passwordReset: {
    subject: (site) => `Réinitialiser votre mot de passe sur ${site}`,
    text: (site, link, hours) =>
      `Quelqu'un a demandé à réinitialiser le mot de passe de votre compte sur ${site}.\n\nPour choisir un nouveau mot de passe, ouvrez ce lien dans les ${hours} heures (il ne sert qu'une fois) :\n${link}\n\nSi ce n'était pas vous, ignorez ce courriel : votre mot de passe reste le même.\n`,
  },
  emailChangeConfirm: {
    subject: (site) => `Confirmez votre nouvelle adresse sur ${site}`,
    text: (site, link) =>
      `Vous avez demandé à utiliser cette adresse pour votre compte sur ${site}.\n\nPour la confirmer, ouvrez :\n${link}\n\nD'ici là, vous vous connectez toujours avec votre ancienne adresse. Si ce n'était pas vous, ignorez ce courriel.\n`,
  },
  emailChanged: {
    subject: (site) => `Votre adresse électronique sur ${site} va changer`,
    text: (site, newEmail) =>
      `L'adresse électronique de votre compte sur ${site} va devenir ${newEmail}, dès que la nouvelle adresse sera confirmée.\n\nSi ce n'était pas vous, changez tout de suite votre mot de passe et contactez l'équipe du serveur.\n`,
  },
  twoFactorEnabled: {
    subject: (site) => `La connexion à deux facteurs est activée sur ${site}`,
    text: (site) =>
      `La connexion à deux facteurs est maintenant activée pour votre compte sur ${site} : la connexion demande un code de votre application d'authentification.\n\nSi ce n'était pas vous, contactez l'équipe du serveur.\n`,
  },
  twoFactorDisabled: {
    subject: (site) => `La connexion à deux facteurs est désactivée sur ${site}`,
    text: (site) =>
      `La connexion à deux facteurs est maintenant désactivée pour votre compte sur ${site} : le mot de passe seul suffit de nouveau.\n\nSi ce n'était pas vous, changez tout de suite votre mot de passe et contactez l'équipe du serveur.\n`,
  },
  newSignIn: {
    subject: (site) => `Une nouvelle connexion à votre compte sur ${site}`,
    text: (site, when, ip, device) =>
      `Votre compte sur ${site} a été ouvert depuis une adresse ou un appareil jamais vus :\n\nHeure : ${when}\nAdresse : ${ip}\nAppareil : ${device}\n\nSi c'était vous, il n'y a rien à faire. Sinon, changez tout de suite votre mot de passe et fermez dans les paramètres de votre compte les sessions que vous ne reconnaissez pas.\n`,
  },
  confirmation: {
    subject: (site) => `Confirmez votre adresse courriel pour ${site}`,
    text: (site, link) =>
      `Bienvenue sur ${site} !\n\nPour confirmer cette adresse courriel, ouvrez :\n${link}\n\nSi vous ne vous êtes pas inscrit·e, ignorez ce courriel.\n`,
  },
  archiveReady: {
    subject: () => "Votre archive est prête à être téléchargée",
    text: (site, user, link) =>
      `Bonjour ${user},\n\nL’archive de votre compte sur ${site} est prête. Téléchargez-la ici :\n${link}\n`,
  },
  warning: {
    actions: {
      none: "Vous avez reçu un avertissement",
      sensitive: "Vos médias seront désormais marqués comme sensibles",
      disable: "Votre compte a été gelé",
      silence: "Votre compte a été limité",
      suspend: "Votre compte a été suspendu",
    },
    subject: (site, action) => `${action} (${site})`,
    text: (site, action, note) => `${action} (${site}).\n${note ? `\nMessage de la modération :\n${note}\n` : ""}`,
  },
};
