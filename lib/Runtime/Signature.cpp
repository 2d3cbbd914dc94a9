//===- Signature.cpp - strict parser of decoda_signature ------------------===//

#include "Signature.h"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace decoda::runtime {

namespace {

const char *const kDtypeNames[] = {"f32", "f16", "bf16", "f64", "i8", "i32", "i64", "i1"};

/// Splits `line` on runs of spaces, tabs and carriage returns.
std::vector<std::string> tokenize(const std::string &line) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      ++i;
    if (i > start)
      tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

/// A whole-token decimal integer (optional leading '-', no '+', no spaces, no overflow).
bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 20)
    return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size())
    return false;
  for (size_t j = i; j < text.size(); ++j)
    if (text[j] < '0' || text[j] > '9')
      return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  value = v;
  return true;
}

} // namespace

bool parseDtype(const std::string &text, decoda_dtype &dtype) {
  for (int i = 0; i < 8; ++i) {
    if (text == kDtypeNames[i]) {
      dtype = static_cast<decoda_dtype>(i);
      return true;
    }
  }
  return false;
}

std::string formatShape(const int64_t *shape, int32_t rank) {
  std::string s = "[";
  for (int32_t i = 0; i < rank; ++i) {
    if (i)
      s += ", ";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

bool parseSignature(const char *text, std::vector<EntrySpec> &entries, std::string &error,
                    int *version) {
  entries.clear();
  int sigVersion = 1;
  if (!text) {
    error = "decoda_signature is a null string";
    return false;
  }
  enum class State { Header, BetweenEntries, InInputs, InOutputs, InDonations } state =
      State::Header;
  std::set<std::string> entryNames, inputNames, outputNames;
  std::string all(text);
  size_t pos = 0;
  int lineNo = 0;
  std::string line;
  auto fail = [&](const std::string &why) {
    error = "malformed decoda_signature, line " + std::to_string(lineNo) + " '" + line +
            "': " + why;
    entries.clear();
    return false;
  };
  while (pos <= all.size()) {
    size_t nl = all.find('\n', pos);
    if (nl == std::string::npos)
      nl = all.size();
    line = all.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineNo;
    std::vector<std::string> tok = tokenize(line);
    if (tok.empty())
      continue;
    const std::string &kw = tok[0];
    switch (state) {
    case State::Header:
      if (kw != "decoda-signature" || tok.size() != 2)
        return fail("expected 'decoda-signature 1' as the first line");
      if (tok[1] != "1" && tok[1] != "2")
        return fail("unsupported signature version '" + tok[1] + "' (this runtime reads 1 and 2)");
      sigVersion = tok[1] == "2" ? 2 : 1;
      state = State::BetweenEntries;
      continue;
    case State::BetweenEntries:
      if (kw != "entry")
        return fail("expected 'entry <name>'");
      if (tok.size() != 2)
        return fail("expected 'entry <name>'");
      if (!entryNames.insert(tok[1]).second)
        return fail("duplicate entry '" + tok[1] + "'");
      entries.push_back(EntrySpec{tok[1], {}, {}});
      inputNames.clear();
      outputNames.clear();
      state = State::InInputs;
      continue;
    case State::InInputs:
    case State::InOutputs:
    case State::InDonations:
      break;
    }
    if (kw == "end") {
      if (tok.size() != 1)
        return fail("expected 'end' alone on its line");
      state = State::BetweenEntries;
      continue;
    }
    if (kw == "donate") {
      if (sigVersion < 2)
        return fail("'donate' needs signature version 2");
      if (tok.size() != 3)
        return fail("expected 'donate <input-name> <output-name>'");
      EntrySpec &entry = entries.back();
      auto find = [](std::vector<TensorSpec> &list, const std::string &name) {
        for (size_t i = 0; i < list.size(); ++i)
          if (list[i].name == name)
            return static_cast<int>(i);
        return -1;
      };
      int in = find(entry.inputs, tok[1]), out = find(entry.outputs, tok[2]);
      if (in < 0)
        return fail("no input '" + tok[1] + "' in entry '" + entry.name + "'");
      if (out < 0)
        return fail("no output '" + tok[2] + "' in entry '" + entry.name + "'");
      TensorSpec &ti = entry.inputs[in], &to = entry.outputs[out];
      if (ti.dtype != to.dtype || ti.shape != to.shape)
        return fail("input '" + ti.name + "' and output '" + to.name +
                    "' differ in dtype or shape");
      if (ti.donation >= 0)
        return fail("input '" + ti.name + "' is donated twice");
      if (to.donation >= 0)
        return fail("output '" + to.name + "' is donated to twice");
      ti.donation = out;
      to.donation = in;
      state = State::InDonations;
      continue;
    }
    if (state == State::InDonations)
      return fail("expected 'donate' or 'end' after a 'donate' line");
    if (kw != "input" && kw != "output")
      return fail("expected 'input', 'output', 'donate' or 'end'");
    bool isInput = kw == "input";
    if (isInput && state == State::InOutputs)
      return fail("an input after an output (inputs come first, in call order)");
    if (tok.size() < 4)
      return fail("expected '" + kw + " <name> <dtype> <rank> <dim>...'");
    TensorSpec spec;
    spec.name = tok[1];
    if (!parseDtype(tok[2], spec.dtype))
      return fail("unknown dtype '" + tok[2] + "' (expected f32 f16 bf16 f64 i8 i32 i64 i1)");
    int64_t rank = 0;
    if (!parseInt(tok[3], rank) || rank < 0 || rank > DECODA_MAX_RANK)
      return fail("rank '" + tok[3] + "' is not an integer in [0, " +
                  std::to_string(DECODA_MAX_RANK) + "]");
    if (tok.size() != static_cast<size_t>(4 + rank))
      return fail("rank " + std::to_string(rank) + " needs " + std::to_string(rank) +
                  " dimensions, found " + std::to_string(tok.size() - 4));
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = 0;
      if (!parseInt(tok[4 + d], dim) || dim < -1)
        return fail("dimension '" + tok[4 + d] + "' is not an integer >= -1");
      spec.shape.push_back(dim);
    }
    std::set<std::string> &names = isInput ? inputNames : outputNames;
    if (!names.insert(spec.name).second)
      return fail("duplicate " + kw + " name '" + spec.name + "'");
    EntrySpec &entry = entries.back();
    (isInput ? entry.inputs : entry.outputs).push_back(std::move(spec));
    state = isInput ? State::InInputs : State::InOutputs;
  }
  if (state == State::Header) {
    lineNo = 1;
    line = all.substr(0, all.find('\n'));
    return fail("expected 'decoda-signature 1' as the first line");
  }
  if (state != State::BetweenEntries) {
    error = "malformed decoda_signature: entry '" + entries.back().name +
            "' has no 'end' line";
    entries.clear();
    return false;
  }
  if (version)
    *version = sigVersion;
  return true;
}

} // namespace decoda::runtime
