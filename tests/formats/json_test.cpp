#include "formats/json.hpp"
#include "core/check.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace headlab;
using namespace headlab::formats;

TEST_CASE("json: numbers, strings and nesting read as RFC 8259 says", "[formats][json]") {
  const JsonValue v = parse_json(
      " {\"a\": [1, -2, 3.5e2, 18446744073709551615, 1e-400],"
      " \"b\": \"x\\u00e9\\ud83d\\ude00\\n\", \"c\": [true, false, null], \"d\": {}} ",
      "test");
  REQUIRE(v.is_object());
  const JsonValue& a = field(v, "a");
  CHECK(a.size() == 5);
  CHECK(a[0].as_double() == 1.0);
  CHECK(a[1].as_double() == -2.0);
  CHECK(a[2].as_double() == 350.0);
  CHECK(a[3].kind() == JsonValue::Kind::unsigned_integer);
  CHECK(a[4].as_double() == 0.0);  // underflow reads as 0, as strtod (and nlohmann) give
  CHECK(field(v, "b").as_string() == "x\xC3\xA9\xF0\x9F\x98\x80\n");
  CHECK(field(v, "c")[0].as_bool());
  CHECK(field(v, "c")[2].is_null());
  CHECK(field(v, "d").is_object());
  CHECK_THROWS_WITH(field(v, "e"), "missing field \"e\"");
}

TEST_CASE("json: writes nlohmann's bytes (sorted keys, shortest doubles, integers, explicit null)", "[formats][json]") {
  JsonValue v = JsonValue::object();
  v["z"] = 0.1;
  v["a"] = 1200.0;
  v["m"] = JsonValue(std::vector<double>{1.3e-31, -0.0, 5.0, 1e21, 123456.789});
  v["m"].push_back(JsonValue(nullptr));
  v["m"].push_back(nullptr);
  v["i"] = JsonValue(std::vector<long>{-3, 0, 40});
  v["u"] = static_cast<unsigned long long>(18446744073709551615ull);
  v["s"] = "tab\there \"quoted\" \x01";
  v["b"] = JsonValue(std::vector<bool>{true, false});
  CHECK(dump_json(v) ==
        "{\"a\":1200.0,\"b\":[true,false],\"i\":[-3,0,40],\"m\":[1.3e-31,-0.0,5.0,1e+21,123456.789,null,null],"
        "\"s\":\"tab\\there \\\"quoted\\\" \\u0001\",\"u\":18446744073709551615,\"z\":0.1}");
  // What it writes it reads back to the same bits.
  const JsonValue back = parse_json(dump_json(v), "round trip");
  CHECK(field(back, "z").as_double() == 0.1);
  CHECK(field(back, "m")[0].as_double() == 1.3e-31);
  CHECK(dump_json(back) == dump_json(v));
}

TEST_CASE("json: a non-finite number is refused by both writers, naming its field, never written as null",
          "[formats][json]") {
  // A NaN R² once went out as "query_r2":[null,null,null] and a NaN loss as null, exit 0.
  JsonValue v = JsonValue::object();
  v["results"]["loss"] = 0.5;
  v["results"]["query_r2"] = JsonValue(std::vector<double>{0.9, NAN, 0.8});
  CHECK_THROWS_WITH(dump_json(v),
                    "cannot write NaN as a JSON number (field \"results.query_r2[1]\"): the value is "
                    "undefined or overflowed; a file holds finite numbers only");
  CHECK_THROWS_WITH(dump_json(JsonValue(INFINITY)), Catch::StartsWith("cannot write +Infinity as a JSON number: "));
  CHECK_THROWS_AS(dump_json(JsonValue(std::vector<double>{-INFINITY})), InputError);
  JsonWriter w;
  w.begin_object().key("final_loss").begin_object().key("value");
  CHECK_THROWS_WITH(w.value(NAN), Catch::StartsWith("cannot write NaN as a JSON number (field \"final_loss.value\")"));
  JsonWriter m;
  m.begin_object().key("w");
  CHECK_THROWS_AS(m.matrix((Matrix(1, 2) << 1.0, -INFINITY).finished()), InputError);
  // A causal mask's −inf score is undefined by nature: an explicit null where asked for, NaN still refused.
  const Matrix masked = (Matrix(1, 2) << 1.0, -INFINITY).finished();
  CHECK(dump_json(matrix_to_json(masked, /*masked_as_null=*/true)) == "[[1.0,null]]");
  CHECK_THROWS_AS(dump_json(matrix_to_json(masked)), InputError);
  CHECK_THROWS_AS(dump_json(matrix_to_json((Matrix(1, 1) << NAN).finished(), true)), InputError);
}

TEST_CASE("json: hostile text gets a short message, never a crash", "[formats][json][errors]") {
  // 100,000 nested arrays or objects: refused at the depth limit before any deep recursion,
  // with a message that quotes a short excerpt only.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH(parse_json(deep, "deep"), Catch::Contains("nested deeper than 64 levels"));
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"x\":";
  try {
    parse_json(objects + "1" + std::string(100000, '}'), "deep");
    FAIL("a 100,000-deep object was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nested deeper than 64 levels"));
    CHECK(std::string(e.what()).size() < 200);
  }
  JsonLimits small;
  small.max_bytes = 100;
  small.max_string_bytes = 10;
  CHECK_THROWS_WITH(parse_json(std::string(101, ' '), "big", small), "big is larger than 100 bytes (101 bytes)");
  CHECK_THROWS_WITH(parse_json("\"" + std::string(50, 'x') + "\"", "long", small),
                    Catch::Contains("a string longer than 10 bytes"));
  CHECK_THROWS_WITH(parse_json("[1e999]", "w"), Catch::Contains("number overflow parsing '1e999'"));
  CHECK_THROWS_WITH(parse_json("{not json", "w"), Catch::StartsWith("w is not valid JSON: expected a member name"));
  CHECK_THROWS_WITH(parse_json("[1,\n 2,]", "w"), Catch::Contains("at line 2, column 4"));
  CHECK_THROWS_WITH(parse_json("[1] x", "w"), Catch::Contains("expected the end of input"));
  CHECK_THROWS_WITH(parse_json("", "w"), Catch::Contains("unexpected end of input"));
  CHECK_THROWS_WITH(parse_json("[01]", "w"), Catch::Contains("expected ',' or ']'"));
  CHECK_THROWS_WITH(parse_json("\"\\ud800\"", "w"), Catch::Contains("surrogate"));
  // The excerpt is short and printable however long and binary the text.
  std::string junk = "[" + std::string(10000, '\x07');
  try {
    parse_json(junk, "junk");
    FAIL("accepted junk");
  } catch (const InputError& e) {
    const std::string message = e.what();
    CHECK(message.size() < 200);
    CHECK(message.find("\\x07") != std::string::npos);
  }
}

TEST_CASE("json: matrices as arrays of rows, checked and named", "[formats][json]") {
  const Matrix m = matrix_from_json(parse_json("[[1, 2], [3, 4.5]]", "m"), "m");
  CHECK(m == (Matrix(2, 2) << 1, 2, 3, 4.5).finished());
  CHECK(dump_json(matrix_to_json(m)) == "[[1.0,2.0],[3.0,4.5]]");
  CHECK_THROWS_WITH(matrix_from_json(parse_json("[[1, 2], [3]]", "m"), "m"),
                    "m row 1 must have 2 numbers like row 0 (rows must be equal in length)");
  CHECK_THROWS_WITH(matrix_from_json(parse_json("[[1, \"2\"]]", "m"), "m"), "m[0][1] is not a number");
  CHECK_THROWS_WITH(matrix_from_json(parse_json("[]", "m"), "m"), Catch::StartsWith("m is empty"));
  CHECK_THROWS_WITH(matrix_from_json(parse_json("{}", "m"), "m"), "m must be an array of rows");
}

TEST_CASE("json: the streaming writer gives dump_json's bytes and refuses keys out of order", "[formats][json]") {
  const Matrix m = (Matrix(2, 2) << 1, 0.5, -7.25, -3e-300).finished();
  JsonWriter w;
  w.begin_object().key("a").value(1200.0).key("b").begin_array().value(true).value(-2L).end_array();
  w.key("m").matrix(m).key("n").numbers(m.data(), 2).key("s").value("x\ty").key("u").value(18446744073709551615ull);
  w.end_object();
  JsonValue v = JsonValue::Object{
      {"a", 1200.0}, {"b", JsonValue::Array{true, -2L}}, {"m", matrix_to_json(m)}, {"n", std::vector<double>{1, 0.5}},
      {"s", "x\ty"}, {"u", 18446744073709551615ull}};
  CHECK(w.text() == dump_json(v));
  JsonWriter bad;
  bad.begin_object().key("b").value(1);
  CHECK_THROWS_AS(bad.key("a"), std::logic_error);
  // KeyOrder::as_written keeps a document's reading order (the `headlab model` documents).
  JsonWriter ordered(KeyOrder::as_written);
  ordered.begin_object().key("tokens").begin_array().value(3).end_array().key("logits").matrix(m).end_object();
  CHECK(ordered.text() == "{\"tokens\":[3],\"logits\":[[1.0,0.5],[-7.25,-3e-300]]}");
}

TEST_CASE("json: a repeated key and text that is not UTF-8 are refused, naming them", "[formats][json][errors]") {
  // A repeated key kept its last value silently (nlohmann's rule): two readers of one file could
  // disagree, so every headlab reader refuses it.
  CHECK_THROWS_WITH(parse_json("{\"n\": 1,\n \"n\": 2}", "the config"),
                    "the config has the key \"n\" twice (the second at line 2, column 2)");
  CHECK_THROWS_WITH(parse_json(R"({"a":{"b":1,"b":1}})", "w"), Catch::Contains("the key \"b\" twice"));
  CHECK(parse_json(R"({"a":{"b":1},"b":{"a":1}})", "w").size() == 2);  // one name in two objects is fine
  for (const std::string bad : {"\x80", "\xc1\xbf", "\xf5\x80\x80\x80", "\xe0\x9f\xbf", "\xed\xbf\xbf",
                                "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xc3", "\xe2\x28\xa1"}) {
    INFO(excerpt(bad));
    CHECK_THROWS_WITH(parse_json("[\"" + bad + "\"]", "w"),
                      Catch::Contains("is not valid JSON: invalid UTF-8 in a string"));
  }
  // The smallest and largest well-formed sequence of each length.
  for (const std::string good : {"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
                                 "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
    INFO(excerpt(good));
    CHECK(parse_json("[\"" + good + "\"]", "w").items()[0].as_string() == good);
  }
}
