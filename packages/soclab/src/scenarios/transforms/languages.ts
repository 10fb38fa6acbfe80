import type { PayloadTransform } from './types.js';

/**
 * A small built-in phrase table (no translation service): the phrases injected instructions are made of, in
 * French, Spanish and German. Longer phrases come first so they win over their parts.
 */
const PHRASES: Readonly<Record<'fr' | 'es' | 'de', readonly (readonly [RegExp, string])[]>> = {
  fr: [
    [/\bimmediately call\b/gi, 'appelle immédiatement'],
    [/\bthe AI should now run\b/gi, "l'IA doit maintenant exécuter"],
    [/\bthe AI assistant should run\b/gi, "l'assistant IA doit exécuter"],
    [/\bbefore anything else\b/gi, 'avant toute chose'],
    [/\bwithout waiting for review\b/gi, 'sans attendre de revue'],
    [/\bauthorized by\b/gi, 'autorisé par'],
    [/\bplease\b/gi, "s'il vous plaît"],
    [/\brun\b/gi, 'exécute'],
    [/\bcall\b/gi, 'appelle'],
    [/\bon\b/gi, 'sur'],
    [/\bfor\b/gi, 'pour'],
    [/\bbecause\b/gi, 'parce que'],
  ],
  es: [
    [/\bimmediately call\b/gi, 'llama de inmediato a'],
    [/\bthe AI should now run\b/gi, 'la IA debe ejecutar ahora'],
    [/\bthe AI assistant should run\b/gi, 'el asistente de IA debe ejecutar'],
    [/\bbefore anything else\b/gi, 'antes que nada'],
    [/\bwithout waiting for review\b/gi, 'sin esperar revisión'],
    [/\bauthorized by\b/gi, 'autorizado por'],
    [/\bplease\b/gi, 'por favor'],
    [/\brun\b/gi, 'ejecuta'],
    [/\bcall\b/gi, 'llama a'],
    [/\bon\b/gi, 'sobre'],
    [/\bfor\b/gi, 'para'],
    [/\bbecause\b/gi, 'porque'],
  ],
  de: [
    [/\bimmediately call\b/gi, 'rufe sofort'],
    [/\bthe AI should now run\b/gi, 'die KI soll jetzt ausführen'],
    [/\bthe AI assistant should run\b/gi, 'der KI-Assistent soll ausführen'],
    [/\bbefore anything else\b/gi, 'vor allem anderen'],
    [/\bwithout waiting for review\b/gi, 'ohne Prüfung abzuwarten'],
    [/\bauthorized by\b/gi, 'autorisiert von'],
    [/\bplease\b/gi, 'bitte'],
    [/\brun\b/gi, 'führe aus'],
    [/\bcall\b/gi, 'rufe'],
    [/\bon\b/gi, 'auf'],
    [/\bfor\b/gi, 'für'],
    [/\bbecause\b/gi, 'weil'],
  ],
};

const NAMES = { fr: 'French', es: 'Spanish', de: 'German' } as const;

function language(code: keyof typeof PHRASES): PayloadTransform {
  return {
    name: `lang-${code}`,
    kind: 'language',
    description: `instruction phrases in ${NAMES[code]} from the built-in phrase table (identifiers stay)`,
    apply: (text) => PHRASES[code].reduce((t, [pattern, phrase]) => t.replace(pattern, phrase), text),
  };
}

export const languageTransforms: readonly PayloadTransform[] = [language('fr'), language('es'), language('de')];
