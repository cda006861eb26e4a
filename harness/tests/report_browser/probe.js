// The scripts harness/tests/report_browser.rs adds to a probe copy of a
// report page (the page itself has none): each probe calls one of the
// functions below, and `done` hands its result to the test.

// Writes `value` as JSON into the DOM, with `<`, `>`, `&` and U+00A0 as
// JSON escapes, so that `--dump-dom`'s serializer prints the text as it is.
function done(value) {
  var p = document.createElement('pre');
  p.id = 'probe-result';
  p.textContent = JSON.stringify(value).replace(/[<>&\u00a0]/g, function (c) {
    return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
  });
  document.body.appendChild(p);
}

// Reads the page into the test's `Seen`: it checks each tab of the code
// panel in turn (and each other language beside it), then puts the page
// back as loaded.
function look() {
  var all = function (selector, f) { return [].map.call(document.querySelectorAll(selector), f); };
  var shown = function (selector) {
    return [].filter.call(document.querySelectorAll(selector), function (e) { return e.getClientRects().length > 0; });
  };
  var longest = function (p) {
    return p.textContent.split('\n').reduce(function (a, b) { return b.length > a.length ? b : a; });
  };
  var wide = function () {
    return shown('#code pre').filter(function (p) { return p.scrollWidth > p.clientWidth; }).map(longest);
  };
  var counts = ['passed', 'failed', 'ignored', 'knownFailures', 'notRun'];
  var first = document.querySelector('input[name=code-tab]:checked');
  var besides = document.querySelectorAll('input[name=code-beside]'), overflow = [];
  var tabs = all('input[name=code-tab]', function (input) {
    input.checked = true;
    [].forEach.call(besides, function (beside) {
      beside.checked = true;
      wide().forEach(function (line) { if (overflow.indexOf(line) < 0) overflow.push(line); });
    });
    besides[0].checked = true;
    var lines = [].concat.apply([], shown('#code pre').map(function (p) { return p.innerText.split('\n'); }));
    return {
      label: document.querySelector('label[for=' + input.id + ']').textContent,
      cells: shown('#code [data-code]').map(function (c) { return c.dataset.code; }),
      note: shown('#code [data-note]').map(function (n) { return n.textContent; }).join(''),
      marks: shown('#code mark').length,
      overflow: wide(),
      opening: lines.filter(function (l) { return /^(<[?]php|declare[(]|namespace |package |import |use |from )/.test(l); })
    };
  });
  if (first) first.checked = true;
  done({
    width: [document.documentElement.scrollWidth, window.innerWidth],
    cells: all('table.matrix td[data-cell]', function (td) {
      var a = td.querySelector('a'), to = a && document.getElementById(a.getAttribute('href').slice(1));
      return [td.dataset.cell, td.dataset.status, !!to && to.tagName === 'LI'];
    }),
    summaries: all('li[data-summary]', function (li) {
      return counts.map(function (c) { return Number(li.dataset[c]); });
    }),
    first_tab: first ? first.id : '',
    tabs: tabs,
    beside_overflow: overflow,
    output: shown('#code-output ~ pre').map(function (p) { return p.textContent; }).join(''),
    text: document.body.textContent
  });
}

// axe-core's violations (axe itself is added before this script), once
// virtual time has let it finish.
function axeViolations() {
  axe.run(document, { resultTypes: ['violations'] }).then(function (r) {
    done(r.violations.map(function (v) {
      var nodes = v.nodes.slice(0, 5).map(function (n) { return n.target.join(' '); });
      return v.id + ' (' + v.impact + '): ' + v.help + ': ' + nodes.join(', ');
    }));
  });
}
