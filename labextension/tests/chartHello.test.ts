/**
 * The chart's view asks the kernel for its snapshot with a "memory.hello", and asks again, less and less often, until
 * the kernel's first message shows the comm carries (a view drawn while the page's widget manager still connects to
 * the kernel sends into a comm that drops it: Notebook 7 opening a notebook whose kernel runs).
 */
import { HELLO_AGAIN_MS, HELLO_TRIES, render } from '../src/chart/widget';

jest.mock('../src/chart/memoryChart', () => ({
  MemoryChart: class {
    received: unknown[] = [];
    receive(message: unknown): void {
      this.received.push(message);
    }
    setTitle(): void {}
    destroy(): void {}
  }
}));

class FakeModel {
  sent: any[] = [];
  private _handlers: Record<string, ((...args: any[]) => void)[]> = {};
  get(name: string): any {
    return name === 'title' ? 'Memory' : 200;
  }
  on(event: string, callback: (...args: any[]) => void): void {
    (this._handlers[event] ||= []).push(callback);
  }
  off(event?: string | null, callback?: ((...args: any[]) => void) | null): void {
    if (event) {
      this._handlers[event] = (this._handlers[event] || []).filter(h => h !== callback);
    }
  }
  send(content: unknown): void {
    this.sent.push(content);
  }
  kernelSays(message: unknown): void {
    (this._handlers['msg:custom'] || []).forEach(h => h(message));
  }
}

const snapshot = { type: 'memory.snapshot', v: 1 };
const batch = { type: 'memory.batch', v: 1 };

describe("the chart's hello", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is said once the view is placed, and answered it is never said again', () => {
    const model = new FakeModel();
    const dispose = render({ model, el: document.createElement('div') });
    expect(model.sent).toHaveLength(0);
    jest.advanceTimersByTime(0);
    expect(model.sent.map(m => m.type)).toEqual(['memory.hello']);
    model.kernelSays(snapshot);
    jest.advanceTimersByTime(120_000);
    expect(model.sent).toHaveLength(1);
    dispose();
  });

  it('is said again, less and less often, while nothing comes from the kernel, then gives up', () => {
    const model = new FakeModel();
    render({ model, el: document.createElement('div') });
    jest.advanceTimersByTime(0);
    jest.advanceTimersByTime(HELLO_AGAIN_MS);
    expect(model.sent).toHaveLength(2); // the first was dropped: asked again after 2 s
    jest.advanceTimersByTime(HELLO_AGAIN_MS);
    expect(model.sent).toHaveLength(2); // the next after 4 s more
    jest.advanceTimersByTime(HELLO_AGAIN_MS);
    expect(model.sent).toHaveLength(3);
    jest.advanceTimersByTime(10 * 60_000);
    expect(model.sent).toHaveLength(HELLO_TRIES);
  });

  it('once the kernel is heard (a batch), is said once more and not again', () => {
    const model = new FakeModel();
    render({ model, el: document.createElement('div') });
    jest.advanceTimersByTime(HELLO_AGAIN_MS); // two said, the first dropped
    expect(model.sent).toHaveLength(2);
    model.kernelSays(batch);
    expect(model.sent).toHaveLength(3); // the comm carries: this one arrives
    model.kernelSays(batch);
    jest.advanceTimersByTime(10 * 60_000);
    expect(model.sent).toHaveLength(3);
  });

  it('a batch before the first hello leaves the first to be said, and a closed view says nothing', () => {
    const early = new FakeModel();
    render({ model: early, el: document.createElement('div') });
    early.kernelSays(batch);
    jest.advanceTimersByTime(10 * 60_000);
    expect(early.sent).toHaveLength(1);
    const closed = new FakeModel();
    const dispose = render({ model: closed, el: document.createElement('div') });
    dispose();
    jest.advanceTimersByTime(10 * 60_000);
    expect(closed.sent).toHaveLength(0);
  });
});
