/**
 * The time zone a country's holidays are given in (the records' start and end times): one per
 * country, its only zone or its capital's. A subdivision's own days are given in its country's
 * zone too: their dates are the subdivision's, their hours those of the capital's clock.
 */
import ct from 'countries-and-timezones';
import { ImportError } from '../shared/importError.ts';

/**
 * The zone of a country whose territory has several (countries-and-timezones lists them in
 * alphabetical order, which says nothing): the capital's, where most of its people keep time.
 * Countries with one zone use it. data/SOURCES.md gives the reasons for the ones without a capital.
 */
const holidayTimeZones: Readonly<Record<string, string>> = {
  AQ: 'Etc/UTC', // no civil time of its own: each station keeps its own country's
  AR: 'America/Argentina/Buenos_Aires',
  AU: 'Australia/Sydney', // Canberra's clock
  BR: 'America/Sao_Paulo', // Brasília's clock
  CA: 'America/Toronto', // Ottawa's clock
  CD: 'Africa/Lagos', // Kinshasa (UTC+01:00)
  CL: 'America/Santiago',
  CN: 'Asia/Shanghai',
  CY: 'Asia/Nicosia',
  DE: 'Europe/Berlin',
  EC: 'America/Guayaquil', // Quito's clock
  ES: 'Europe/Madrid',
  FM: 'Pacific/Pohnpei', // Palikir
  GL: 'America/Nuuk',
  ID: 'Asia/Jakarta',
  KI: 'Pacific/Tarawa',
  KZ: 'Asia/Almaty', // Astana's clock
  MH: 'Pacific/Majuro',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  MY: 'Asia/Kuala_Lumpur',
  NZ: 'Pacific/Auckland', // Wellington's clock
  PF: 'Pacific/Tahiti', // Papeete
  PG: 'Pacific/Port_Moresby',
  PS: 'Asia/Hebron', // the West Bank, where the Palestinian Authority sits (Ramallah)
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  TF: 'Indian/Reunion', // administered from Saint-Pierre, Réunion
  UA: 'Europe/Kyiv',
  UM: 'Pacific/Wake', // no capital; Wake Island, the one with an airfield and staff
  US: 'America/New_York', // Washington's clock
  UZ: 'Asia/Tashkent',
  VN: 'Asia/Ho_Chi_Minh', // Hanoi's clock
};

export function holidayTimeZone(alpha2Code: string): string {
  const listed = holidayTimeZones[alpha2Code];
  if (listed !== undefined) return listed;
  const zones = ct.getCountry(alpha2Code)?.timezones ?? [];
  const [only] = zones;
  if (zones.length !== 1 || only === undefined) {
    throw new ImportError([
      `${alpha2Code} has ${zones.length} time zones in countries-and-timezones (${zones.join(', ')}); add the capital's to holidayTimeZones in holidays.ts`,
    ]);
  }
  return only;
}
