# heapq, as gpumemrepl runs it (embedded by pymods.go).
def _down(heap, start, pos):
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
            continue
        break
    heap[pos] = item


def _up(heap, pos):
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _down(heap, start, pos)


def heappush(heap, item):
    heap.append(item)
    _down(heap, 0, len(heap) - 1)


def heappop(heap):
    if not heap:
        raise IndexError('index out of range')
    last = heap.pop()
    if heap:
        item = heap[0]
        heap[0] = last
        _up(heap, 0)
        return item
    return last


def heapify(x):
    for i in reversed(range(len(x) // 2)):
        _up(x, i)


def heappushpop(heap, item):
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        _up(heap, 0)
    return item


def heapreplace(heap, item):
    top = heap[0]
    heap[0] = item
    _up(heap, 0)
    return top


def nlargest(n, iterable, key=None):
    return sorted(iterable, key=key, reverse=True)[:n]


def nsmallest(n, iterable, key=None):
    return sorted(iterable, key=key)[:n]
