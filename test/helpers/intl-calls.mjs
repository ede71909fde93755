// Loaded into a started server (NODE_OPTIONS=--import): writes one stderr line, `intl: <what> at
// <caller>`, for every use of ICU's locale services (Intl constructors, toLocale*String,
// localeCompare). The first such use maps about 4 MiB of ICU data into the process (decision 391),
// so a test can check that a start makes none. Plain JavaScript, as no-network.mjs.
const report = (what) => {
  const caller = new Error().stack?.split('\n')[3]?.trim() ?? '';
  process.stderr.write(`intl: ${what} ${caller}\n`);
};
for (const name of [
  'Collator',
  'DateTimeFormat',
  'DisplayNames',
  'ListFormat',
  'NumberFormat',
  'PluralRules',
  'RelativeTimeFormat',
  'Segmenter',
]) {
  Intl[name] = new Proxy(Intl[name], {
    construct(target, args, newTarget) {
      report(`Intl.${name}`);
      return Reflect.construct(target, args, newTarget);
    },
    apply(target, self, args) {
      report(`Intl.${name}`);
      return Reflect.apply(target, self, args);
    },
  });
}
for (const [owner, prototype, method] of [
  ['Number', Number.prototype, 'toLocaleString'],
  ['BigInt', BigInt.prototype, 'toLocaleString'],
  ['Date', Date.prototype, 'toLocaleString'],
  ['Date', Date.prototype, 'toLocaleDateString'],
  ['Date', Date.prototype, 'toLocaleTimeString'],
  ['String', String.prototype, 'localeCompare'],
]) {
  const original = prototype[method];
  prototype[method] = function (...args) {
    report(`${owner}.prototype.${method}`);
    return original.apply(this, args);
  };
}
