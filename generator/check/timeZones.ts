/**
 * `timeZones`: every served zone's utcOffset (timeZone.json) against the standard offset of the same
 * zone in Debian's tzdata package, committed as data/checks/references/tzdata-standard-offsets.json
 * by generator/check/references/tzdata.py.
 *
 * The two are independent builds of the IANA tz database read by independent code: the import reads
 * moment-timezone's packed data in JavaScript; the reference is Debian's zic output (main form, with
 * backzone) read by CPython's zoneinfo. Both define the standard offset the same way (the smallest
 * offset in force during the year after the tzdata release, standardOffsets.ts), so with the same
 * tzdata release every zone must agree, and a difference between two releases is a NEWS entry.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { standardOffsetYear, tzdataVersion } from '../import/countries/standardOffsets.ts';
import { timeZoneSchema } from '../records/schemas.ts';
import type { CheckReport, DataCheck, Disagreement } from './check.ts';

const snapshotSchema = z.object({
  debianPackageVersion: z.string().min(1),
  debianPackageDate: z.iso.date(),
  tzdataVersion: z.string().regex(/^\d{4}[a-z]$/),
  referenceYear: z.number().int(),
  zones: z.record(z.string(), timeZoneSchema.shape.utcOffset),
});

export const referenceFile = (dataDir: string): string => path.join(dataDir, 'checks', 'references', 'tzdata-standard-offsets.json');

export const check: DataCheck = {
  name: 'timeZones',
  async run(data, dataDir): Promise<CheckReport> {
    const snapshot = snapshotSchema.parse(JSON.parse(await readFile(referenceFile(dataDir), 'utf8')));
    // Offsets of different years are not comparable: a zone may change its standard time in between.
    const servedYear = standardOffsetYear(tzdataVersion);
    if (snapshot.referenceYear !== servedYear) {
      throw new Error(
        `${referenceFile(dataDir)} holds ${snapshot.referenceYear}'s offsets (tzdata ${snapshot.tzdataVersion}) but the import uses ${servedYear}'s (tzdata ${tzdataVersion}): regenerate it with generator/check/references/tzdata.py from a newer Debian tzdata`,
      );
    }

    const timeZones = z.array(timeZoneSchema).parse(data.get('timeZone') ?? []);
    const disagreements: Disagreement[] = [];
    for (const zone of timeZones) {
      const theirs = snapshot.zones[zone.name];
      if (theirs !== zone.utcOffset) disagreements.push({ key: zone.name, ours: zone.utcOffset, theirs: theirs ?? 'absent' });
    }
    const zonesEqual = timeZones.length - disagreements.length;
    return {
      name: 'timeZones',
      reference: `Debian tzdata ${snapshot.debianPackageVersion} (IANA tz ${snapshot.tzdataVersion}, ${snapshot.debianPackageDate}); served from tzdata ${tzdataVersion} (moment-timezone), standard offsets of ${servedYear}`,
      figures: {
        zonesCompared: timeZones.length,
        zonesEqual,
        zonesEqualRatio: timeZones.length === 0 ? 0 : zonesEqual / timeZones.length,
      },
      // Across two releases a difference is a NEWS entry, explained in exceptions.json instead.
      targets: snapshot.tzdataVersion === tzdataVersion ? { zonesEqualRatio: 1 } : {},
      disagreements,
    };
  },
};
