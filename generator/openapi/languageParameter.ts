/**
 * What the OpenAPI document (document.ts) says of the lookups whose names come in several languages
 * (contract/routes.ts `languages`: holidays and special days): the optional parameter, which the
 * spec does not have and is marked as an extension, Accept-Language, and the answer's headers.
 */
import { languageForm } from '../../contract/keys.ts';
import type { RouteLanguages } from '../../contract/routes.ts';

type JsonObject = Record<string, unknown>;

export function languageParameter(languages: RouteLanguages): JsonObject {
  const always = `\`${languages.alwaysAnswered}\``;
  return {
    name: languages.param,
    in: 'query',
    required: false,
    'x-extension': true,
    description: `**Extension.** The language of the names: ${always} or the country's own (${languageForm}; only the primary subtag counts). English names are python-holidays' translations (Türkiye's are curated, each with its source); a country without names in ${always} answers its own names for it. Without this parameter, Accept-Language chooses between the two; without either, the country's own language. Another language answers 400 naming those the country has. The answer's Content-Language names the language of its names.`,
    schema: { type: 'string', minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$' },
    example: languages.alwaysAnswered,
  };
}

export const acceptLanguageParameter: JsonObject = {
  name: 'Accept-Language',
  in: 'header',
  required: false,
  description:
    "Holidays and special days, when the query names no language: the client's languages by preference (RFC 9110 §12.5.4, q-values), each range counting for the language of its primary subtag (`en-GB` for English). The heavier of the country's own and English wins; a tie, or neither acceptable, gives the country's own. A malformed element is ignored.",
  schema: { type: 'string', maxLength: 1024 },
};

/** The response headers of these lookups, made with openapiComponents' `header`. */
export function languageHeaders(header: (description: string, schema: JsonObject, required?: boolean) => JsonObject): JsonObject {
  return {
    ContentLanguage: header(
      "The language of the names (BCP 47): the country's own (`tr`, `zh-CN`; `en` where its names are English), or the English ones' (`en-US`, `en-HK`, Türkiye's `en`). Absent for a country without any names.",
      { type: 'string', minLength: 2 },
      false,
    ),
    VaryLanguage: header('The answer also depends on Accept-Language, which chooses the language when the query names none.', {
      type: 'string',
      pattern: 'Accept-Language',
    }),
  };
}
