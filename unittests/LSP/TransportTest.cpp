//===-- TransportTest.cpp - Splitting the input into messages -------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Transport.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <vector>

using namespace maxcode::lsp;

namespace {

/// \p Body in a Content-Length frame, as a client sends it.
std::string frameMessage(llvm::StringRef Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" +
         Body.str();
}

/// Everything the parser gives for \p Input, fed in pieces of \p Chunk
/// bytes, then at the end of input. Skip notes are written "SKIP: why".
std::vector<std::string> parseAll(MessageParser &P, llvm::StringRef Input,
                                  size_t Chunk = 1 << 20) {
  std::vector<std::string> Out;
  auto Take = [&](const InputEvent &E) {
    Out.push_back(E.Kind == InputEvent::Message ? E.Text : "SKIP: " + E.Text);
  };
  for (size_t I = 0; I < Input.size(); I += Chunk) {
    P.feed(Input.substr(I, Chunk));
    while (std::optional<InputEvent> E = P.next())
      Take(*E);
  }
  if (std::optional<InputEvent> E = P.finish())
    Take(*E);
  return Out;
}

std::vector<std::string> framed(llvm::StringRef Input, size_t Chunk = 1 << 20) {
  FramedParser P;
  return parseAll(P, Input, Chunk);
}

TEST(FramedParserTest, ReadsFrames) {
  std::string In = frameMessage("{\"a\":1}") + frameMessage("{}");
  EXPECT_EQ(framed(In), (std::vector<std::string>{"{\"a\":1}", "{}"}));
}

TEST(FramedParserTest, ReadsFramesFedOneByteAtATime) {
  std::string In = frameMessage("{\"a\":1}") + frameMessage("[true]");
  EXPECT_EQ(framed(In, 1), (std::vector<std::string>{"{\"a\":1}", "[true]"}));
}

TEST(FramedParserTest, AcceptsOtherHeadersAndBareLineFeeds) {
  EXPECT_EQ(framed("content-length: 2\nContent-Type: application/"
                   "vscode-jsonrpc; charset=utf-8\n\n{}"),
            (std::vector<std::string>{"{}"}));
}

TEST(FramedParserTest, SkipsHeadersWithoutAUsableLength) {
  EXPECT_EQ(framed("Content-Type: x\r\n\r\n" + frameMessage("{}")),
            (std::vector<std::string>{
                "SKIP: header without Content-Length: 'Content-Type: "
                "x\\0D\\0A\\0D\\0A'",
                "{}"}));
  EXPECT_EQ(
      framed("Content-Length: abc\r\n\r\n" + frameMessage("{}")),
      (std::vector<std::string>{"SKIP: invalid Content-Length 'abc'", "{}"}));
  EXPECT_EQ(
      framed("Content-Length: -4\r\n\r\n" + frameMessage("{}")),
      (std::vector<std::string>{"SKIP: invalid Content-Length '-4'", "{}"}));
}

TEST(FramedParserTest, RefusesHugeLengths) {
  std::vector<std::string> Out =
      framed("Content-Length: 99999999999\r\n\r\n" + frameMessage("{}"));
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].rfind("SKIP: Content-Length 99999999999 is over", 0), 0u);
  EXPECT_EQ(Out[1], "{}");
}

TEST(FramedParserTest, ToleratesGarbageBeforeAHeader) {
  // On lines of its own, garbage is an unknown header; glued to the header
  // name, it is ignored too.
  EXPECT_EQ(framed("garbage\r\n" + frameMessage("{}")),
            (std::vector<std::string>{"{}"}));
  EXPECT_EQ(framed("}}garbage" + frameMessage("{}")),
            (std::vector<std::string>{"{}"}));
  // Stray line ends between frames are not worth a note.
  EXPECT_EQ(framed(frameMessage("{}") + "\r\n\r\n" + frameMessage("[]")),
            (std::vector<std::string>{"{}", "[]"}));
}

TEST(FramedParserTest, DropsLongGarbageWithoutAHeader) {
  // Read so far: more bytes than any header, and no blank line. They are
  // dropped rather than buffered without end.
  FramedParser P;
  std::string Garbage(FramedParser::MaxHeaderBytes + 10, 'x');
  P.feed(Garbage);
  std::optional<InputEvent> E = P.next();
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Kind, InputEvent::Skipped);
  EXPECT_EQ(E->Text.rfind(std::to_string(Garbage.size()) +
                              " bytes without a message header: 'xxx",
                          0),
            0u);
  P.feed(frameMessage("{}"));
  E = P.next();
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Kind, InputEvent::Message);
  EXPECT_EQ(E->Text, "{}");
  // A long garbage line that does end is an unknown header line.
  EXPECT_EQ(framed(Garbage + "\r\n" + frameMessage("[]")),
            (std::vector<std::string>{"[]"}));
}

TEST(FramedParserTest, ReportsTruncatedInputAtTheEnd) {
  EXPECT_EQ(framed("Content-Length: 10\r\n\r\n{\"a\""),
            (std::vector<std::string>{
                "SKIP: input ended inside a message: 4 of 10 bytes"}));
  EXPECT_EQ(framed("Content-Len"),
            (std::vector<std::string>{
                "SKIP: input ended inside a message header: 'Content-Len'"}));
  EXPECT_EQ(framed(""), std::vector<std::string>{});
}

TEST(FramedParserTest, UnreadBytesAreReadAgainFirst) {
  // What the server does after a frame too long for its body: the part of
  // the bad body holding the next header goes back.
  FramedParser P;
  std::string Next = frameMessage("{\"id\":2}");
  P.feed("Content-Length: 20\r\n\r\n{\"id\":1" + Next);
  std::optional<InputEvent> Bad = P.next();
  ASSERT_TRUE(Bad);
  EXPECT_EQ(Bad->Text, "{\"id\":1" + Next.substr(0, 13));
  P.unread(llvm::StringRef(Bad->Text).drop_front(7));
  std::optional<InputEvent> Good = P.next();
  ASSERT_TRUE(Good);
  EXPECT_EQ(Good->Kind, InputEvent::Message);
  EXPECT_EQ(Good->Text, "{\"id\":2}");
  EXPECT_FALSE(P.next());
}

// What the server writes is LLVM's JSONTransport's; it reads back as one
// message per frame, non-ASCII text counted in bytes, pretty or not.
TEST(FramedParserTest, ReadsWhatLLVMsTransportWrites) {
  for (bool Pretty : {false, true}) {
    std::string Written;
    llvm::raw_string_ostream OS(Written);
    llvm::lsp::JSONTransport T(std::unique_ptr<llvm::lsp::JSONTransportInput>(),
                               OS, Pretty);
    T.notify("window/showMessage", llvm::json::Object{{"message", "\xC3\xA9"}});
    T.reply(7, llvm::json::Value(nullptr));
    std::vector<std::string> Read = framed(Written);
    ASSERT_EQ(Read.size(), 2u) << Written;
    for (const std::string &Body : Read)
      EXPECT_TRUE(bool(llvm::json::parse(Body))) << Body;
    EXPECT_NE(Read[0].find("\xC3\xA9"), std::string::npos);
  }
}

std::vector<std::string> delimited(llvm::StringRef Input,
                                   size_t Chunk = 1 << 20) {
  DelimitedParser P;
  return parseAll(P, Input, Chunk);
}

TEST(DelimitedParserTest, SplitsOnDashLinesAndDropsComments) {
  llvm::StringRef In = "# RUN: maxcode-lsp -lit-test < %s\n"
                       "{\"a\":\n"
                       "  1}\n"
                       "---\n"
                       "# CHECK: something\n"
                       "---\n"
                       "{\"b\":2}\r\n"
                       "---\r\n"
                       "{\"c\":3}";
  std::vector<std::string> Expected = {"{\"a\":\n  1}\n", "{\"b\":2}\n",
                                       "{\"c\":3}"};
  EXPECT_EQ(delimited(In), Expected);
  EXPECT_EQ(delimited(In, 1), Expected);
}

TEST(DelimitedParserTest, NothingButCommentsIsNoMessage) {
  EXPECT_EQ(delimited("# only\n---\n\n# comments\n"),
            std::vector<std::string>{});
}

} // namespace
