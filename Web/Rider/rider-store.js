// @ts-check
// A store for what the rider app's modules share. Each update replaces the whole object, so a state read once stays
// as it was (a module never sees another's half-made change) and the type checker refuses writes that bypass it.

/**
 * @template S
 * @typedef {object} Store
 * @property {() => Readonly<S>} get The state as it is now.
 * @property {(change: Partial<S> | ((state: Readonly<S>) => Partial<S>)) => void} update Merges the fields given
 *   (or returned from the current state) into a new state, then tells the listeners.
 * @property {(listener: (state: Readonly<S>, previous: Readonly<S>) => void) => () => void} subscribe Hears of every
 *   update; returns the way to stop.
 */

/**
 * @template S
 * @param {S} initial
 * @returns {Store<S>}
 */
export function createStore(initial) {
  let state = initial;
  /** @type {Set<(state: Readonly<S>, previous: Readonly<S>) => void>} */
  const listeners = new Set();
  return {
    get: () => state,
    update(change) {
      const previous = state;
      state = { ...state, ...(typeof change === 'function' ? change(state) : change) };
      for (const listener of listeners) listener(state, previous);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
  };
}
