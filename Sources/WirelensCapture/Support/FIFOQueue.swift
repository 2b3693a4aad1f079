/// A first-in first-out queue over an array: appends at the end, takes from a moving start, and drops the taken
/// prefix once it is a quarter of the storage, so memory follows what is queued, not what ever was.
struct FIFOQueue<Element> {
    private var items: [Element] = []
    private var start = 0

    /// The elements queued now.
    var count: Int { items.count - start }

    /// The oldest element, if any.
    var first: Element? { start < items.count ? items[start] : nil }

    mutating func append(_ element: Element) {
        items.append(element)
    }

    /// Removes and returns the oldest element.
    @discardableResult
    mutating func removeFirst() -> Element? {
        guard start < items.count else { return nil }
        let element = items[start]
        start += 1
        if start == items.count {
            items.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1024 && start * 4 > items.count {
            items.removeFirst(start)
            start = 0
        }
        return element
    }

    /// Keeps only the elements for which `keep` is true, in their order.
    mutating func retain(where keep: (Element) -> Bool) {
        items = items[start...].filter(keep)
        start = 0
    }

    mutating func removeAll() {
        items = []
        start = 0
    }
}
