// Belgian national register number: 11 digits YYMMDD SSS CC. CC = 97 - (first nine digits mod 97);
// for births from 2000 on, the nine digits are prefixed with a 2 before taking the remainder.
// Separators people type (dots, dashes, spaces) are allowed.

export function normaliseNationalRegisterNumber(value: string): string | null {
  const digits = value.replace(/[\s.-]/g, '');
  return /^\d{11}$/.test(digits) ? digits : null;
}

export function isNationalRegisterNumber(value: string): boolean {
  const digits = normaliseNationalRegisterNumber(value);
  if (!digits) return false;
  const base = digits.slice(0, 9);
  const check = Number(digits.slice(9));
  const before2000 = 97 - Number(BigInt(base) % 97n);
  const from2000 = 97 - Number(BigInt(`2${base}`) % 97n);
  return check === before2000 || check === from2000;
}
