// Los correos sobre la propia cuenta, en español.
import type { MailTexts } from "./en.ts";

export const mailEs: MailTexts = {
  passwordReset: {
    subject: (site) => `Restablece tu contraseña en ${site}`,
    text: (site, link, hours) =>
      `Alguien pidió restablecer la contraseña de tu cuenta en ${site}.\n\nPara elegir una nueva contraseña, abre este enlace en las próximas ${hours} horas (funciona una sola vez):\n${link}\n\nSi no fuiste tú, ignora este correo: tu contraseña no cambia.\n`,
  },
  emailChangeConfirm: {
    subject: (site) => `Confirma tu nueva dirección de correo en ${site}`,
    text: (site, link) =>
      `Pediste usar esta dirección para tu cuenta en ${site}.\n\nPara confirmarla, abre:\n${link}\n\nHasta entonces sigues iniciando sesión con tu dirección anterior. Si no fuiste tú, ignora este correo.\n`,
  },
  emailChanged: {
    subject: (site) => `Tu dirección de correo en ${site} va a cambiar`,
    text: (site, newEmail) =>
      `La dirección de correo de tu cuenta en ${site} va a cambiar a ${newEmail}, en cuanto se confirme la nueva dirección.\n\nSi no fuiste tú, cambia tu contraseña de inmediato y contacta con el equipo del servidor.\n`,
  },
  twoFactorEnabled: {
    subject: (site) => `El inicio de sesión en dos pasos está activado en ${site}`,
    text: (site) =>
      `El inicio de sesión en dos pasos está ahora activado para tu cuenta en ${site}: al iniciar sesión se pide un código de tu aplicación de autenticación.\n\nSi no fuiste tú, contacta con el equipo del servidor.\n`,
  },
  twoFactorDisabled: {
    subject: (site) => `El inicio de sesión en dos pasos está desactivado en ${site}`,
    text: (site) =>
      `El inicio de sesión en dos pasos está ahora desactivado para tu cuenta en ${site}: la contraseña sola vuelve a bastar.\n\nSi no fuiste tú, cambia tu contraseña de inmediato y contacta con el equipo del servidor.\n`,
  },
  newSignIn: {
    subject: (site) => `Un nuevo inicio de sesión en tu cuenta de ${site}`,
    text: (site, when, ip, device) =>
      `Se inició sesión en tu cuenta de ${site} desde una dirección o un dispositivo nunca vistos:\n\nHora: ${when}\nDirección: ${ip}\nDispositivo: ${device}\n\nSi fuiste tú, no hay nada que hacer. Si no, cambia tu contraseña de inmediato y cierra en la configuración de tu cuenta las sesiones que no reconozcas.\n`,
  },
  confirmation: {
    subject: (site) => `Confirma tu dirección de correo para ${site}`,
    text: (site, link) =>
      `¡Te damos la bienvenida a ${site}!\n\nPara confirmar esta dirección de correo, abre:\n${link}\n\nSi no te registraste, ignora este correo.\n`,
  },
  archiveReady: {
    subject: () => "Tu archivo está listo para descargar",
    text: (site, user, link) =>
      `Hola, ${user}:\n\nEl archivo de tu cuenta en ${site} está listo. Descárgalo desde:\n${link}\n`,
  },
  warning: {
    actions: {
      none: "Has recibido una advertencia",
      sensitive: "Tus archivos multimedia se marcarán como sensibles a partir de ahora",
      disable: "Tu cuenta ha sido congelada",
      silence: "Tu cuenta ha sido limitada",
      suspend: "Tu cuenta ha sido suspendida",
    },
    subject: (site, action) => `${action} (${site})`,
    text: (site, action, note) => `${action} (${site}).\n${note ? `\nNota de la moderación:\n${note}\n` : ""}`,
  },
};
