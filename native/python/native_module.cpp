// dotcov._native: the C++ core for Python (data files, assemblies, PDBs, IL).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <new>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <unordered_map>
#include <vector>

#include "dotcov/data_file.h"
#include "native_apply.h"
#include "native_branches.h"
#include "native_csharp.h"
#include "native_il.h"
#include "native_methods.h"
#include "native_numbers.h"
#include "native_plan.h"
#include "native_rows.h"
#include "native_symbols.h"
#include "native_xml.h"

namespace py = pybind11;
using namespace dotcov;

namespace {


py::bytes ToBytes(const uint8_t* p, size_t n) { return py::bytes(reinterpret_cast<const char*>(p), n); }

[[noreturn]] void RaiseOsError(const std::string& path) {
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

py::dict ReadDataFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) RaiseOsError(path);
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) RaiseOsError(path);
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    RaiseOsError(path);
  }
  // One read of the whole file as it is now (a file cut short meanwhile is parsed as cut short: the parser says so).
  const size_t size = st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
  std::vector<uint8_t> buffer(size);
  size_t got = 0;
  while (got < size) {
    const ssize_t n = read(fd, buffer.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) RaiseOsError(path);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  const Bytes bytes(buffer.data(), got);
  DataFile f;
  std::string error;
  if (!ParseDataFile(bytes, &f, &error)) throw py::value_error(error);
  py::dict out;
  out["format_version"] = f.format_version;
  out["pid"] = f.pid;
  out["start_time_ns"] = f.start_time_ns;
  out["lost_records"] = f.lost_records;
  out["lost_errno"] = f.lost_errno;
  py::list processes;
  for (const auto& p : f.processes) {
    py::dict d;
    d["command_line"] = py::bytes(p.command_line).attr("decode")("utf-8", "replace");
    d["cwd"] = py::bytes(p.cwd).attr("decode")("utf-8", "replace");
    if (p.attached_ns) d["attached_ns"] = p.attached_ns;
    processes.append(d);
  }
  out["processes"] = processes;
  std::unordered_map<uint32_t, std::string> context_names;
  for (const auto& c : f.contexts) context_names.emplace(c.id, c.name);
  py::list modules;
  for (const auto& m : f.modules) {
    py::dict d;
    d["mvid"] = ToBytes(m.id.mvid.data(), 16);
    d["pdb_id"] = ToBytes(m.id.pdb_id.data(), 20);
    d["path"] = py::bytes(m.id.path).attr("decode")("utf-8", "replace");
    // The sites as three uint32 columns one after another (tokens, offsets, kinds), native byte order: read at C
    // speed into one array (Python ints appended one by one would be most of reading a data file).
    // (Written straight into the bytes object: no copy of 12 bytes a site.)
    const size_t n = m.sites.size();
    py::object blob = py::reinterpret_steal<py::object>(
        PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n * 3 * sizeof(uint32_t))));
    if (!blob) throw py::error_already_set();
    uint32_t* columns = reinterpret_cast<uint32_t*>(PyBytes_AS_STRING(blob.ptr()));
    for (size_t i = 0; i < n; ++i) {
      columns[i] = m.sites[i].method_token;
      columns[n + i] = m.sites[i].il_offset;
      columns[2 * n + i] = m.sites[i].kind;
    }
    d["site_columns"] = blob;
    d["hits"] = m.hits;
    d["method_states"] = ToBytes(m.method_states.data(), m.method_states.size());
    py::list notes;  // (method token, IL offset, site kind, reason); offset and kind WHOLE_METHOD for a method
    for (const auto& n : m.not_measured)
      notes.append(py::make_tuple(n.method_token, n.il_offset, n.kind,
                                  py::bytes(n.reason).attr("decode")("utf-8", "replace")));
    d["not_measured"] = notes;
    // Per-test contexts: name -> site indexes (the reader dropped pairs naming no context).
    std::map<std::string, std::vector<uint32_t>> contexts;
    for (const auto& [id, index] : m.context_hits) contexts[context_names[id]].push_back(index);
    py::dict ctx;
    for (const auto& [name, indexes] : contexts)
      ctx[py::bytes(name).attr("decode")("utf-8", "replace")] = indexes;
    d["contexts"] = ctx;
    modules.append(d);
  }
  out["modules"] = modules;
  out["conflicts"] = f.conflicts;
  out["warnings"] = f.warnings;
  out["notices"] = f.notices;
  py::list merged;  // (pid, start time ns) of each data file this one holds
  for (const auto& id : f.merged_inputs) merged.append(py::make_tuple(id.pid, id.start_time_ns));
  out["merged_inputs"] = merged;
  return out;
}

template <size_t N>
std::array<uint8_t, N> FixedBytes(py::handle h, const char* what) {
  std::string s = py::cast<std::string>(py::bytes(py::reinterpret_borrow<py::object>(h)));
  if (s.size() != N) throw py::value_error(std::string(what) + " has the wrong length");
  std::array<uint8_t, N> a{};
  std::memcpy(a.data(), s.data(), N);
  return a;
}

void WriteDataFile(const std::string& path, py::dict data) {
  DataFile f;
  if (data.contains("pid")) f.pid = py::cast<uint32_t>(data["pid"]);
  if (data.contains("start_time_ns")) f.start_time_ns = py::cast<uint64_t>(data["start_time_ns"]);
  if (data.contains("merged_inputs"))
    for (py::handle h : py::list(data["merged_inputs"])) {
      auto t = py::cast<py::tuple>(h);
      f.merged_inputs.push_back({py::cast<uint32_t>(t[0]), py::cast<uint64_t>(t[1])});
    }
  if (data.contains("lost_records")) f.lost_records = py::cast<uint32_t>(data["lost_records"]);
  if (data.contains("lost_errno")) f.lost_errno = py::cast<uint32_t>(data["lost_errno"]);
  for (py::handle h : py::list(data["processes"])) {
    py::dict p = py::reinterpret_borrow<py::dict>(h);
    f.processes.push_back({py::cast<std::string>(p["command_line"]), py::cast<std::string>(p["cwd"]),
                           p.contains("attached_ns") ? py::cast<uint64_t>(p["attached_ns"]) : uint64_t{0}});
  }
  std::map<std::string, uint32_t> context_ids;  // ids are per file: numbered here in name order
  for (py::handle h : py::list(data["modules"])) {
    py::dict m = py::reinterpret_borrow<py::dict>(h);
    if (m.contains("contexts"))
      for (auto item : py::dict(m["contexts"])) context_ids.emplace(py::cast<std::string>(item.first), 0);
  }
  for (auto& [name, id] : context_ids) {
    id = static_cast<uint32_t>(f.contexts.size() + 1);
    f.contexts.push_back({id, name});
  }
  for (py::handle h : py::list(data["modules"])) {
    py::dict m = py::reinterpret_borrow<py::dict>(h);
    ModuleData md;
    md.id.mvid = FixedBytes<16>(m["mvid"], "mvid");
    md.id.pdb_id = FixedBytes<20>(m["pdb_id"], "pdb_id");
    md.id.path = py::cast<std::string>(m["path"]);
    auto tokens = py::cast<std::vector<uint32_t>>(m["tokens"]);
    auto offsets = py::cast<std::vector<uint32_t>>(m["offsets"]);
    md.hits = py::cast<std::vector<uint64_t>>(m["hits"]);
    std::vector<uint32_t> kinds(tokens.size(), kSequencePoint);
    if (m.contains("kinds")) kinds = py::cast<std::vector<uint32_t>>(m["kinds"]);
    if (tokens.size() != offsets.size() || tokens.size() != md.hits.size() || tokens.size() != kinds.size())
      throw py::value_error("tokens, offsets, kinds and hits differ in length");
    for (size_t i = 0; i < tokens.size(); ++i) md.sites.push_back({tokens[i], offsets[i], kinds[i]});
    if (m.contains("method_states")) {
      std::string states = py::cast<std::string>(py::bytes(py::reinterpret_borrow<py::object>(m["method_states"])));
      md.method_states.assign(states.begin(), states.end());
    }
    if (m.contains("not_measured")) {
      for (py::handle n : py::list(m["not_measured"])) {
        auto t = py::cast<py::tuple>(n);
        md.not_measured.push_back({py::cast<uint32_t>(t[0]), py::cast<uint32_t>(t[1]), py::cast<uint32_t>(t[2]),
                                   py::cast<std::string>(t[3])});
      }
    }
    if (m.contains("contexts")) {
      for (auto item : py::dict(m["contexts"])) {
        uint32_t id = context_ids.at(py::cast<std::string>(item.first));
        std::vector<uint32_t> indexes = py::cast<std::vector<uint32_t>>(py::list(py::reinterpret_borrow<py::object>(item.second)));
        std::sort(indexes.begin(), indexes.end());
        for (uint32_t index : indexes) {
          if (index >= md.sites.size()) throw py::value_error("a context names a site index out of range");
          md.context_hits.emplace_back(id, index);
        }
      }
    }
    f.modules.push_back(std::move(md));
  }
  if (data.contains("conflicts")) f.conflicts = py::cast<std::vector<std::string>>(data["conflicts"]);
  std::vector<uint8_t> bytes = SerializeDataFile(f);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) {
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
    throw py::error_already_set();
  }
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "dotcov's C++ core: data files, assemblies, portable PDBs";
  m.attr("DATA_FORMAT_VERSION") = kDataFormatVersion;
  m.attr("WHOLE_METHOD") = kWholeMethod;
  // The site kinds the analysis reads besides points and branch outcomes (data_file.h SiteKind).
  m.attr("SITE_VALUE_FALSE") = static_cast<uint32_t>(kValueFalse);
  m.attr("SITE_VALUE_TRUE") = static_cast<uint32_t>(kValueTrue);
  m.attr("SITE_OPERAND_SKIPPED") = static_cast<uint32_t>(kOperandSkipped);
  m.attr("SITE_OPERAND_FALSE") = static_cast<uint32_t>(kOperandFalse);
  m.attr("SITE_OPERAND_TRUE") = static_cast<uint32_t>(kOperandTrue);
  m.def("read_data_file", &ReadDataFile, py::arg("path"),
        "Reads a data file; raises OSError if unreadable, ValueError if not a usable data file.");
  m.def("write_data_file", &WriteDataFile, py::arg("path"), py::arg("data"));
  RegisterSymbols(m);
  RegisterIl(m);
  RegisterApply(m);
  RegisterPlan(m);
  RegisterMethods(m);
  RegisterXml(m);
  RegisterNumbers(m);
  RegisterBranches(m);
  RegisterCsharp(m);
  RegisterRows(m);
}
