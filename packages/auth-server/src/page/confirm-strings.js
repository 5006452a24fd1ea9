// The passkey confirmation page's texts in the login page's nine languages (a text missing in one
// is shown in English), and `tc` to look one up in the page's language.

export const CONFIRM_STRINGS = {
  en: {
    title: 'Confirm with your passkey',
    note: 'An app you are signed in to asks you to confirm it is you. Use the passkey you set up for two-step verification.',
    use: 'Use my passkey',
    done: 'Confirmed. You can close this window and go back to the app.',
    expired: 'This link has expired or was used already. Start again from the app.',
    cancelled: 'The passkey request was cancelled or timed out. Try again.',
    unsupported: 'This browser does not support passkeys.',
    powered: 'Secured by Portico',
  },
  de: {
    title: 'Mit Passkey bestätigen',
    note: 'Eine App, bei der Sie angemeldet sind, bittet Sie zu bestätigen, dass Sie es sind. Nutzen Sie den Passkey Ihrer Zwei-Schritt-Verifizierung.',
    use: 'Meinen Passkey verwenden',
    done: 'Bestätigt. Sie können dieses Fenster schließen und zur App zurückkehren.',
    expired: 'Dieser Link ist abgelaufen oder wurde schon verwendet. Beginnen Sie erneut in der App.',
    cancelled: 'Die Passkey-Anfrage wurde abgebrochen oder ist abgelaufen. Bitte erneut versuchen.',
    unsupported: 'Dieser Browser unterstützt keine Passkeys.',
    powered: 'Gesichert durch Portico',
  },
  es: {
    title: 'Confirma con tu llave de acceso',
    note: 'Una aplicación en la que has iniciado sesión te pide que confirmes que eres tú. Usa la llave de acceso de tu verificación en dos pasos.',
    use: 'Usar mi llave de acceso',
    done: 'Confirmado. Puedes cerrar esta ventana y volver a la aplicación.',
    expired: 'Este enlace ha caducado o ya se usó. Empieza de nuevo desde la aplicación.',
    cancelled: 'La solicitud de la llave de acceso se canceló o caducó. Inténtalo de nuevo.',
    unsupported: 'Este navegador no admite llaves de acceso.',
    powered: 'Protegido por Portico',
  },
  fr: {
    title: 'Confirmer avec votre clé d’accès',
    note: 'Une application à laquelle vous êtes connecté vous demande de confirmer votre identité. Utilisez la clé d’accès de votre validation en deux étapes.',
    use: 'Utiliser ma clé d’accès',
    done: 'Confirmé. Vous pouvez fermer cette fenêtre et revenir à l’application.',
    expired: 'Ce lien a expiré ou a déjà servi. Recommencez depuis l’application.',
    cancelled: 'La demande de clé d’accès a été annulée ou a expiré. Réessayez.',
    unsupported: 'Ce navigateur ne prend pas en charge les clés d’accès.',
    powered: 'Sécurisé par Portico',
  },
  pt: {
    title: 'Confirme com sua chave de acesso',
    note: 'Um app em que você está conectado pede que você confirme que é você. Use a chave de acesso da sua verificação em duas etapas.',
    use: 'Usar minha chave de acesso',
    done: 'Confirmado. Você pode fechar esta janela e voltar ao app.',
    expired: 'Este link expirou ou já foi usado. Comece de novo pelo app.',
    cancelled: 'A solicitação da chave de acesso foi cancelada ou expirou. Tente novamente.',
    unsupported: 'Este navegador não oferece suporte a chaves de acesso.',
    powered: 'Protegido por Portico',
  },
  nl: {
    title: 'Bevestig met je passkey',
    note: 'Een app waarbij je bent aangemeld vraagt je te bevestigen dat jij het bent. Gebruik de passkey van je verificatie in twee stappen.',
    use: 'Mijn passkey gebruiken',
    done: 'Bevestigd. Je kunt dit venster sluiten en teruggaan naar de app.',
    expired: 'Deze link is verlopen of al gebruikt. Begin opnieuw vanuit de app.',
    cancelled: 'Het passkey-verzoek is geannuleerd of verlopen. Probeer het opnieuw.',
    unsupported: 'Deze browser ondersteunt geen passkeys.',
    powered: 'Beveiligd door Portico',
  },
  ja: {
    title: 'パスキーで確認',
    note: 'サインイン中のアプリが本人確認を求めています。2 段階認証に設定したパスキーを使ってください。',
    use: 'パスキーを使う',
    done: '確認しました。このウィンドウを閉じてアプリに戻れます。',
    expired: 'このリンクは期限切れか、すでに使用されています。アプリからやり直してください。',
    cancelled: 'パスキーのリクエストがキャンセルされたか、タイムアウトしました。もう一度お試しください。',
    unsupported: 'このブラウザはパスキーに対応していません。',
    powered: 'Portico による保護',
  },
  ko: {
    title: '패스키로 확인',
    note: '로그인한 앱이 본인 확인을 요청합니다. 2단계 인증에 설정한 패스키를 사용하세요.',
    use: '내 패스키 사용',
    done: '확인되었습니다. 이 창을 닫고 앱으로 돌아가세요.',
    expired: '이 링크는 만료되었거나 이미 사용되었습니다. 앱에서 다시 시작하세요.',
    cancelled: '패스키 요청이 취소되었거나 시간이 초과되었습니다. 다시 시도하세요.',
    unsupported: '이 브라우저는 패스키를 지원하지 않습니다.',
    powered: 'Portico 보안',
  },
  zh: {
    title: '用通行密钥确认',
    note: '你已登录的一个应用请你确认是本人操作。请使用你为两步验证设置的通行密钥。',
    use: '使用我的通行密钥',
    done: '已确认。你可以关闭此窗口并返回应用。',
    expired: '此链接已过期或已被使用。请从应用重新开始。',
    cancelled: '通行密钥请求已取消或超时。请重试。',
    unsupported: '此浏览器不支持通行密钥。',
    powered: '由 Portico 提供安全保障',
  },
};

let lang = 'en';

/** Makes `tag`'s language the page's when the table has it (else English); returns the language used. */
export function setConfirmLanguage(tag) {
  const short = String(tag ?? '')
    .slice(0, 2)
    .toLowerCase();
  lang = Object.hasOwn(CONFIRM_STRINGS, short) ? short : 'en';
  return lang;
}

export function tc(key) {
  const table = Object.hasOwn(CONFIRM_STRINGS, lang) ? CONFIRM_STRINGS[lang] : CONFIRM_STRINGS.en;
  return table[key] ?? CONFIRM_STRINGS.en[key];
}
