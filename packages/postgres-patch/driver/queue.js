export default Queue

// Entries before `index` are already shifted out. `remove` searches only the live ones, and the array is compacted
// as the dead prefix grows: a queue that never empties under sustained load would otherwise keep every entry it ever
// held, and each `remove` (on every query) would scan them all.
function Queue(initial = []) {
  let xs = initial.slice()
  let index = 0

  function compact() {
    if (index === xs.length) {
      index = 0
      xs = []
    } else if (index > 64 && index * 2 > xs.length) {
      xs = xs.slice(index)
      index = 0
    }
  }

  return {
    get length() {
      return xs.length - index
    },
    remove: (x) => {
      const i = xs.indexOf(x, index)
      if (i === -1)
        return null
      xs.splice(i, 1)
      compact()
      return x
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index]
      xs[index++] = undefined
      compact()
      return out
    }
  }
}
