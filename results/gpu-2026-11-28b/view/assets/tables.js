// Sortable tables (click a header) and row filters (an input with data-table="<table id>").
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], asc = !th.classList.contains("sorted-asc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
      th.classList.add(asc ? "sorted-asc" : "sorted-desc");
      var key = function (row) {
        var cell = row.cells[col], text = cell.dataset.sort || cell.textContent.trim();
        var number = parseFloat(text);
        return isNaN(number) ? text.toLowerCase() : number;
      };
      Array.from(body.rows).sort(function (a, b) {
        var x = key(a), y = key(b);
        return (x > y ? 1 : x < y ? -1 : 0) * (asc ? 1 : -1);
      }).forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.querySelectorAll("input.filter").forEach(function (input) {
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var table = document.getElementById(input.dataset.table);
    Array.from(table.tBodies[0].rows).forEach(function (row) {
      var text = row.textContent.toLowerCase();
      row.style.display = words.every(function (w) { return text.indexOf(w) >= 0; }) ? "" : "none";
    });
  });
});
