// Cobertura's `<lines>` blocks at C speed: a million-statement report writes two million `<line>` elements (each
// class's and each method's), which formatted in Python were most of `dotcov xml`'s own time. Only the bulk
// "numbers to text" is here; cobertura.py decides everything else (escaping, rates, what a branch line says).
#include "native_xml.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

// A Python object's text: `str` as UTF-8 (cobertura.py has cleaned it of what XML cannot carry).
std::string_view Utf8(PyObject* s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) throw py::error_already_set();
  return {p, static_cast<size_t>(n)};
}

// Appends an integer as Python's "%d" writes it; beyond 64 bits (a sum of counters can be) through Python.
void AppendInt(std::string& out, PyObject* value) {
  py::object owned;
  if (!PyLong_Check(value)) {  // ("%d" takes any number through int())
    owned = py::reinterpret_steal<py::object>(PyNumber_Long(value));
    if (!owned) throw py::error_already_set();
    value = owned.ptr();
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
    return;
  }
  py::str text = py::reinterpret_steal<py::str>(PyObject_Str(value));
  if (!text) throw py::error_already_set();
  out.append(Utf8(text.ptr()));
}

long long LineNumber(PyObject* key) {
  int overflow = 0;
  long long v = PyLong_Check(key) ? PyLong_AsLongLongAndOverflow(key, &overflow) : -1;
  if (!PyLong_Check(key) || overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw py::type_error("line numbers must be integers within 64 bits");
  }
  return v;
}

// (line number, the dict's key object, its value object), borrowed from the dict for the call's duration.
struct Entry {
  long long number;
  PyObject* key;
  PyObject* value;
};

std::vector<Entry> SortedEntries(PyObject* dict) {
  std::vector<Entry> out;
  out.reserve(static_cast<size_t>(PyDict_GET_SIZE(dict)));
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  bool ascending = true;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    long long n = LineNumber(key);
    ascending = ascending && (out.empty() || out.back().number < n);
    out.push_back({n, key, value});
  }
  if (!ascending) std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.number < b.number; });
  return out;
}

// `<line>` of a line with branch outcomes: cobertura.py's (condition-coverage attribute, `<condition>` texts).
void AppendBranchLine(std::string& out, const Entry& line, PyObject* outcomes, std::string_view indent) {
  if (!PyTuple_Check(outcomes) || PyTuple_GET_SIZE(outcomes) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(outcomes, 0)) ||
      !PyTuple_Check(PyTuple_GET_ITEM(outcomes, 1)))
    throw py::type_error("a branch line's outcomes are (condition-coverage str, tuple of <condition> str, ...)");
  PyObject* conditions = PyTuple_GET_ITEM(outcomes, 1);
  out += "<line number=\"";
  AppendInt(out, line.key);
  out += "\" hits=\"";
  AppendInt(out, line.value);
  out += "\" branch=\"True\" condition-coverage=\"";
  out += Utf8(PyTuple_GET_ITEM(outcomes, 0));
  Py_ssize_t n = PyTuple_GET_SIZE(conditions);
  if (n == 0) {
    out += "\" />";
    return;
  }
  out += "\">\n";
  out += indent;
  out += "  <conditions>\n";
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* c = PyTuple_GET_ITEM(conditions, i);
    if (!PyUnicode_Check(c)) throw py::type_error("a <condition> text must be a str");
    out += indent;
    out += "    ";
    out += Utf8(c);
    out += '\n';
  }
  out += indent;
  out += "  </conditions>\n";
  out += indent;
  out += "</line>";
}

// `<lines>` at `indent` (ending in a newline): each line of `lines` (number -> hits) in ascending order, plain
// (`branch="False"`) unless `branches` (number -> outcomes, see AppendBranchLine) has it.
py::str CoberturaLines(py::dict lines, py::dict branches, std::string_view indent) {
  std::string out;
  if (PyDict_GET_SIZE(lines.ptr()) == 0) {
    out.append(indent).append("<lines />\n");
    return py::str(out);
  }
  std::vector<Entry> entries = SortedEntries(lines.ptr());
  std::vector<Entry> special = SortedEntries(branches.ptr());
  std::string line_indent = std::string(indent) + "  ";
  out.reserve(entries.size() * (line_indent.size() + 56) + 2 * indent.size() + 20);
  out.append(indent).append("<lines>\n");
  auto next = special.begin();
  for (const Entry& e : entries) {
    out += line_indent;
    while (next != special.end() && next->number < e.number) ++next;
    if (next != special.end() && next->number == e.number) {
      AppendBranchLine(out, e, next->value, line_indent);
    } else {
      out += "<line number=\"";
      AppendInt(out, e.key);
      out += "\" hits=\"";
      AppendInt(out, e.value);
      out += "\" branch=\"False\" />";
    }
    out += '\n';
  }
  out.append(indent).append("</lines>\n");
  PyObject* text = PyUnicode_DecodeUTF8(out.data(), static_cast<Py_ssize_t>(out.size()), "strict");
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

}  // namespace

void RegisterXml(py::module_& m) {
  m.def("cobertura_lines", &CoberturaLines, py::arg("lines"), py::arg("branches"), py::arg("indent"),
        "Cobertura's <lines> block at `indent`, ending in a newline: `lines` (number -> hits) in ascending order, "
        "those in `branches` (number -> (condition-coverage, tuple of <condition> texts, ...)) as branch lines.");
}
