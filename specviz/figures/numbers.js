// specviz.figures.numbers in the browser: the one rule by which SpecViz writes a number. Python
// reads this file and puts it before each view's own code (the live view, the timeline, the
// player); tests/test_numbers.py runs it under Node against the Python half for every case.
//
// A value is snapped to 12 significant digits (as toExponential(11) rounds it: correctly, a tie to
// the larger magnitude), then rounded half away from zero, as a reader rounds by hand: 1.385 is
// "1.39" and 0.65 % is "0.7 %". Float noise below the 12th digit (a sum added in another order)
// changes nothing, and a share k/N at its tie rounds up, whichever float holds it.

// How the page's language writes a number (specviz.text.NUMBERS): a view passes its own with
// useNumbers before it writes one.
const numberStyle = { decimal: ".", group: ",", percent: "%" };

/** Write numbers as ``style`` says (a value of specviz.text.NUMBERS). */
function useNumbers(style) {
  Object.assign(numberStyle, style);
}

// A number written with "." and "%" as its language writes it.
function local(text) {
  return text.replace(".", numberStyle.decimal).replace("%", numberStyle.percent);
}

function snapped(x) {
  // [m, e]: |x| snapped is m · 10^e, m a BigInt of at most 13 digits
  const [mantissa, power] = Math.abs(x).toExponential(11).split("e");
  return [BigInt(mantissa.replace(".", "")), Number(power) - 11];
}

// m · 10^e rounded to d decimals, half away from zero, written out ("-" for a negative x).
function written(m, e, d, negative) {
  let k;
  if (e + d >= 0) k = m * 10n ** BigInt(e + d);
  else {
    const unit = 10n ** BigInt(-(e + d));
    k = m / unit + (2n * (m % unit) >= unit ? 1n : 0n);
  }
  const text = k.toString().padStart(d + 1, "0");
  const whole = d ? `${text.slice(0, -d)}.${text.slice(-d)}` : text;
  return negative && k !== 0n ? `-${whole}` : whole;
}

/** specviz.figures.numbers.decimal: ``x`` with ``d`` decimals. */
function decimal(x, d) {
  const [m, e] = snapped(x);
  return local(written(m, e, d, x < 0));
}

/** specviz.figures.numbers.percent: a probability with the precision a reader needs. */
function percent(x) {
  return local(percentText(x));
}

function percentText(x) {
  const [m, e] = snapped(x);
  const negative = x < 0;
  if (e + 2 >= 0 || m % 10n ** BigInt(-(e + 2)) === 0n) return `${written(m, e + 2, 0, negative)}%`;
  const top = e + 2 + m.toString().length - 1; // the power of ten of its first digit
  if (top < 0) {
    const d = 1 - top;
    return d > 6 ? "<0.000001%" : `${written(m, e + 2, d, negative).replace(/\.?0+$/, "")}%`;
  }
  for (let d = 1; d < 7; d++) {
    const text = written(m, e + 2, d, negative);
    if (Number(text) !== 100) return `${text}%`;
  }
  return ">99.999999%";
}
