/**
 * What python-holidays' days are in a work calendar (contract/workCalendar.ts): each category's
 * type, and the marks the snapshot gives a day (observed or substitute, estimated).
 */
import type { SpecialDayType } from '../../../contract/workCalendar.ts';
import { ImportError } from '../shared/importError.ts';
import type { ObservedDay } from './observedDays.ts';
import type { SnapshotCountry } from './pythonHolidays.ts';

/**
 * python-holidays' categories other than `public` (its docs: "Holiday categories"), each as a
 * work-calendar type, or null for an observance that changes no one's working day. A category
 * not listed stops the import, so that a new one is decided, not guessed.
 */
const categoryTypes: Readonly<Record<string, SpecialDayType | null>> = {
  bank: 'bank',
  half_day: 'halfDay',
  optional: 'optional',
  // Days off for some: government staff, the armed forces; India's days off for women.
  government: 'optional',
  armed_forces: 'optional',
  optional_women: 'optional',
  // Sweden's Midsummer, Christmas and New Year's Eves: no law makes them days off, most workplaces close.
  de_facto: 'optional',
  // Days off for the members of one community (Iraq, North Macedonia, Montenegro, Argentina …).
  albanian: 'optional',
  armenian: 'optional',
  bosnian: 'optional',
  catholic: 'optional',
  christian: 'optional',
  hebrew: 'optional',
  hindu: 'optional',
  islamic: 'optional',
  orthodox: 'optional',
  protestant: 'optional',
  roma: 'optional',
  sabian: 'optional',
  serbian: 'optional',
  turkish: 'optional',
  vlach: 'optional',
  yazidi: 'optional',
  // Named days that are working days, observances (the US's Valentine's Day, Finland's flag days),
  // and school holidays: the pupils' days off, not a working day's change for anyone else.
  workday: null,
  unofficial: null,
  school: null,
};

export function specialDayType(alpha2Code: string, category: string): SpecialDayType | undefined {
  const type = categoryTypes[category];
  if (type === undefined) {
    throw new ImportError([`python-holidays snapshot: ${alpha2Code} has days of the category "${category}": say what they are in dayTypes.ts categoryTypes`]);
  }
  return type ?? undefined;
}

/** Where two categories give one name on one day, the type that says more about the working day wins. */
const strength: readonly (SpecialDayType | undefined)[] = ['workday', 'halfDay', 'bank', 'optional', undefined];
export const typeRank = (type: SpecialDayType | undefined): number => strength.indexOf(type);

type DayMarks = Pick<ObservedDay, 'observedFor' | 'provisional'>;

/** The marks of a day of the snapshot (or of one subdivision's part of it), by date and name. */
export function dayMarksOf(entity: Pick<SnapshotCountry, 'observed' | 'estimated'>): (day: string, summary: string) => DayMarks {
  const observedFor = new Map(entity.observed.map(([day, summary, actual]) => [`${day} ${summary}`, actual]));
  const estimated = new Set(entity.estimated);
  return (day, summary) => {
    const actual = observedFor.get(`${day} ${summary}`);
    return { ...(actual === undefined ? {} : { observedFor: actual }), ...(estimated.has(summary) ? { provisional: true as const } : {}) };
  };
}
