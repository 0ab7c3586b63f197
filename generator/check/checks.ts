/**
 * The data checks `npm run data:check` runs, in this order. Adding a check is adding it here, its
 * reference to data/checks/references/ and data/SOURCES.md, and its targets to its report.
 */
import { banksCheck } from './banks.ts';
import type { DataCheck } from './check.ts';
import { countryNamesCheck } from './countryNames.ts';
import { frenchPostalCodesCheck } from './frenchPostalCodes.ts';
import { germanPostalCodesCheck } from './germanPostalCodes.ts';
import { holidaysCheck } from './holidays.ts';
import { indianPostalCodesCheck } from './indianPostalCodes.ts';
import { neighbourhoodNamesCheck } from './neighbourhoodNames.ts';
import { openHolidaysCheck, regionalHolidaysCheck } from './openHolidays.ts';
import { populationCheck } from './population.ts';
import { postalCodesCheck } from './postalCodes.ts';
import { subdivisionsCheck } from './subdivisions.ts';
import { timeZonesCheck } from './timeZones.ts';
import { usPostalCodesCheck } from './usPostalCodes.ts';
import { weekendsCheck } from './weekends.ts';

export const dataChecks: readonly DataCheck[] = [
  subdivisionsCheck,
  populationCheck,
  banksCheck,
  timeZonesCheck,
  postalCodesCheck,
  neighbourhoodNamesCheck,
  germanPostalCodesCheck,
  frenchPostalCodesCheck,
  usPostalCodesCheck,
  indianPostalCodesCheck,
  holidaysCheck,
  openHolidaysCheck,
  regionalHolidaysCheck,
  weekendsCheck,
  countryNamesCheck,
];
