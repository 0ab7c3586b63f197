/**
 * Time zones (timeZone.json) and country time zones (countryTimeZone.json): which IANA tz database
 * canonical zones there are and the countries they cover, from countries-and-timezones (MIT), plus
 * the two uninhabited countries it gives no zone, from data/curated/country-time-zones.json. Each
 * zone's offset is not the package's (scraped from a Wikipedia table) but its standard offset
 * computed from tzdata itself (standardOffsets.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ct from 'countries-and-timezones';
import { z } from 'zod';
import { countryTimeZoneSchema, timeZoneSchema } from '../../records/schemas.ts';
import { byCountryName, reuseLinkIds } from './countryLinks.ts';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import type { DatasetImporter } from '../importer.ts';
import { reuseIds } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { standardOffset, tzdataVersion } from './standardOffsets.ts';

type TimeZone = z.infer<typeof timeZoneSchema>;

const packageZoneSchema = z.object({
  name: timeZoneSchema.shape.name,
  countries: z.array(z.string().regex(/^[A-Z]{2}$/)),
  /** The canonical zone a deprecated name (a tzdb link) points at; null for a canonical zone. */
  aliasOf: z.string().nullable(),
  deprecated: z.boolean().optional(),
});

const curatedTimeZonesSchema = z.strictObject({
  note: z.string().min(1),
  entries: z.array(
    z.strictObject({
      alpha2Code: z.string().regex(/^[A-Z]{2}$/),
      timeZone: timeZoneSchema.shape.name,
      why: z.string().min(1),
      source: sourceUrl,
    }),
  ),
});

/** The canonical zones (no deprecated names, which tzdb keeps only as links), by name. */
function loadCanonicalZones(): Map<string, z.infer<typeof packageZoneSchema>> {
  const parsed = z.record(z.string(), packageZoneSchema).safeParse(ct.getAllTimezones({ deprecated: true }));
  if (!parsed.success) {
    throw new ImportError([`countries-and-timezones no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  }
  return new Map(
    Object.values(parsed.data)
      .filter((zone) => zone.aliasOf === null && zone.deprecated !== true)
      .map((zone) => [zone.name, zone]),
  );
}

/** SOURCES.md names the tzdata release the offsets come from, so an upgrade makes someone read it again. */
async function assertTzdataDocumented(dataDir: string): Promise<void> {
  const sourcesFile = path.join(dataDir, 'SOURCES.md');
  if (!(await readFile(sourcesFile, 'utf8')).includes(`tzdata ${tzdataVersion}`)) {
    throw new ImportError([`${sourcesFile} does not name tzdata ${tzdataVersion} (moment-timezone's data); update it`]);
  }
}

export const importer: DatasetImporter = async ({ dataDir, countries, previous }) => {
  await assertTzdataDocumented(dataDir);
  const canonicalZones = loadCanonicalZones();
  const zoneNamesByCountry = new Map<string, Set<string>>();
  for (const zone of canonicalZones.values()) {
    for (const alpha2Code of zone.countries) zoneNamesByCountry.set(alpha2Code, (zoneNamesByCountry.get(alpha2Code) ?? new Set()).add(zone.name));
  }

  const curated = await readCuratedFile(dataDir, 'country-time-zones.json', curatedTimeZonesSchema);
  const alpha2Codes = new Set(countries.map((country) => country.alpha2Code));
  const problems: string[] = [];
  for (const { alpha2Code, timeZone } of curated.entries) {
    if (!alpha2Codes.has(alpha2Code)) problems.push(`country-time-zones.json: ${alpha2Code} is not an imported country`);
    if (zoneNamesByCountry.has(alpha2Code)) problems.push(`country-time-zones.json: countries-and-timezones now covers ${alpha2Code}; remove its entry`);
    if (!canonicalZones.has(timeZone)) problems.push(`country-time-zones.json: ${timeZone} (${alpha2Code}) is not a canonical zone of countries-and-timezones`);
    zoneNamesByCountry.set(alpha2Code, new Set([timeZone]));
  }
  for (const country of countries) {
    if (!zoneNamesByCountry.has(country.alpha2Code))
      problems.push(`no time zone for ${country.alpha2Code} ${country.name}: add a sourced entry to country-time-zones.json`);
  }
  if (problems.length > 0) throw new ImportError(problems);

  const zoneIdFor = reuseIds('timeZone', await previous('timeZone', timeZoneSchema), (timeZone) => timeZone.name);
  const linkedNames = new Set([...alpha2Codes].flatMap((alpha2Code) => [...(zoneNamesByCountry.get(alpha2Code) ?? [])]));
  const timeZones: TimeZone[] = [];
  for (const name of [...linkedNames].sort()) {
    if (!canonicalZones.has(name)) continue;
    const utcOffset = standardOffset(name);
    if (utcOffset === undefined) problems.push(`${name}: tzdata ${tzdataVersion} (moment-timezone) has no such zone`);
    else timeZones.push({ id: zoneIdFor(name), name, utcOffset });
  }
  if (problems.length > 0) throw new ImportError(problems);

  const nameById = new Map(timeZones.map((timeZone) => [timeZone.id, timeZone.name]));
  const idByName = new Map(timeZones.map((timeZone) => [timeZone.name, timeZone.id]));
  const linkIdFor = reuseLinkIds('countryTimeZone', await previous('countryTimeZone', countryTimeZoneSchema), countries, (link) =>
    nameById.get(link.timeZoneId),
  );
  const links = byCountryName(countries).flatMap((country) =>
    [...(zoneNamesByCountry.get(country.alpha2Code) ?? [])].sort().flatMap((name) => {
      const timeZoneId = idByName.get(name);
      return timeZoneId === undefined ? [] : [{ id: linkIdFor(country.alpha3Code, name), countryId: country.id, timeZoneId }];
    }),
  );
  return [
    { recordType: 'timeZone', records: timeZones, schema: timeZoneSchema },
    { recordType: 'countryTimeZone', records: links, schema: countryTimeZoneSchema },
  ];
};
