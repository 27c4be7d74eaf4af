// The device-management app: plain DOM code. The capabilities are declared in the HTML; this file
// gives them behaviour (`.handler`, `.read`, or an `agent-invoke` listener) and live state
// (`unavailable`, `note`), and renders the table a person uses.
import { AgentSurfaceError } from './kit.js';

const INITIAL_DEVICES = [
  { id: 'cam-lobby', name: 'Lobby camera', kind: 'camera', status: 'online' },
  { id: 'lock-main', name: 'Main door lock', kind: 'lock', status: 'online' },
  { id: 'therm-3f', name: '3rd floor thermostat', kind: 'thermostat', status: 'offline' },
  { id: 'cam-dock', name: 'Loading dock camera', kind: 'camera', status: 'online' },
  { id: 'co2-lab', name: 'Lab CO\u2082 sensor', kind: 'sensor', status: 'online' },
];

/** Wires the app inside `surface` (an `<agent-surface>` holding the declarations of index.html). */
export function startDeviceApp(surface) {
  let devices = INITIAL_DEVICES.map((d) => ({ ...d }));
  let selected = new Set();

  const $ = (selector) => {
    const el = surface.querySelector(selector);
    if (!el) throw new Error(`demo: ${selector} is missing from the page`);
    return el;
  };
  const capability = (name) => $(`agent-capability[name="${name}"]`);
  const tbody = $('#devices-table tbody');
  const count = $('#selection-count');
  const disableButton = $('#disable-selected');

  const byId = (id) => devices.find((d) => d.id === id);
  const unknownIds = (ids) => ids.filter((id) => !byId(id));
  function requireKnown(ids) {
    const unknown = unknownIds(ids);
    if (unknown.length) {
      // A deliberate, structured error: the agent gets the code, the message and the details.
      throw new AgentSurfaceError(
        'PRECONDITION_FAILED',
        `No device has the id ${unknown.map((id) => `"${id}"`).join(', ')}.`,
        {
          details: { unknownIds: unknown, knownIds: devices.map((d) => d.id) },
        },
      );
    }
  }

  function render() {
    tbody.replaceChildren(
      ...devices.map((d) => {
        const tr = document.createElement('tr');
        tr.dataset.id = d.id;
        tr.classList.toggle('selected', selected.has(d.id));
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = selected.has(d.id);
        box.setAttribute('aria-label', `Select ${d.name}`);
        box.addEventListener('change', () => {
          if (box.checked) selected.add(d.id);
          else selected.delete(d.id);
          render();
        });
        const cells = [box, d.name, d.id, d.kind, d.status].map((content) => {
          const td = document.createElement('td');
          if (typeof content === 'string') td.textContent = content;
          else td.append(content);
          return td;
        });
        cells[4].className = `status status-${d.status}`;
        tr.append(...cells);
        return tr;
      }),
    );
    const n = selected.size;
    count.textContent = n ? `${n} selected` : 'Nothing selected';
    disableButton.disabled = n === 0;

    // Live state the agent sees (capabilityState), without re-registering anything.
    const noteText = `${n} of ${devices.length} selected`;
    capability('selectRows').setAttribute('note', noteText);
    capability('selection').setAttribute('note', noteText);
    const enabled = devices.filter((d) => d.status !== 'disabled').length;
    const disable = capability('devices.disable');
    if (enabled === 0) disable.setAttribute('unavailable', 'Every device is already disabled.');
    else disable.removeAttribute('unavailable');
  }

  function disableDevices(ids) {
    requireKnown(ids);
    for (const id of ids) byId(id).status = 'disabled';
    render();
    return { disabled: ids };
  }

  // Observations answer through `.read`.
  capability('rows').read = () => devices.map((d) => ({ ...d, selected: selected.has(d.id) }));
  capability('selection').read = () =>
    devices.filter((d) => selected.has(d.id)).map(({ id, name }) => ({ id, name }));

  // Actions through `.handler`: the input has already been validated against the compiled schema.
  capability('selectRows').handler = ({ ids }) => {
    requireKnown(ids);
    selected = new Set(ids);
    render();
    return { selected: [...selected] };
  };
  capability('devices.disable').handler = ({ ids }) => disableDevices(ids);

  // `rename` shows the event path: no handler, the app answers `agent-invoke` with a promise.
  capability('rename').addEventListener('agent-invoke', (event) => {
    const { id, name } = event.detail.input;
    event.detail.respondWith(
      (async () => {
        requireKnown([id]);
        await new Promise((resolve) => setTimeout(resolve, 150)); // a server round trip
        const device = byId(id);
        const previous = device.name;
        device.name = name.trim();
        render();
        return { id, previous, name: device.name };
      })(),
    );
  });

  // The person's own controls.
  disableButton.addEventListener('click', () => {
    if (selected.size) disableDevices([...selected]);
  });
  $('#reset').addEventListener('click', () => {
    devices = INITIAL_DEVICES.map((d) => ({ ...d }));
    selected = new Set();
    render();
  });

  render();
  return {
    get devices() {
      return devices.map((d) => ({ ...d }));
    },
    get selected() {
      return [...selected];
    },
  };
}
