/// The request and response parsers of one HTTP/1.x conversation, in one reference.
final class HTTPParserPair {
    var requests = HTTPMessageParser(role: .request)
    var responses = HTTPMessageParser(role: .response)
}
