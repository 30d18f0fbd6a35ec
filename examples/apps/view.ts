/**
 * The forecast view: the app of apps.ts, running in the host's sandboxed iframe. It speaks the MCP Apps dialect
 * through ext-apps' `App` (over postMessage to the host): it shows the tool input as it arrives, draws the tool
 * result, asks the host to call the app-only `switch_units` tool, and sends a message to the host's chat.
 */
import { App } from '@modelcontextprotocol/ext-apps';

interface Forecast {
  readonly city: string;
  readonly conditions: string;
  readonly units: 'celsius' | 'fahrenheit';
  readonly hourly: readonly { readonly hour: number; readonly temperature: number }[];
}

const app = new App({ name: 'forecast-view', version: '1.0.0' });
const byId = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
let shown: Forecast | undefined;

function isForecast(value: unknown): value is Forecast {
  const forecast = value as Partial<Forecast> | undefined;
  return typeof forecast?.city === 'string' && Array.isArray(forecast.hourly);
}

function draw(forecast: Forecast): void {
  shown = forecast;
  const unit = forecast.units === 'celsius' ? '°C' : '°F';
  byId('city').textContent = forecast.city;
  byId('conditions').textContent = forecast.conditions;
  byId('hours').replaceChildren(...forecast.hourly.map(({ hour, temperature }) => {
    const item = document.createElement('li');
    item.textContent = `${String(hour).padStart(2, '0')}:00 ${temperature} ${unit}`;
    return item;
  }));
  byId('units').textContent = forecast.units === 'celsius' ? 'Show in °F' : 'Show in °C';
}

// Handlers first: the host sends the tool input and result right after the handshake.
app.ontoolinput = ({ arguments: args }) => {
  byId('status').textContent = `Loading the forecast for ${String(args?.['city'] ?? '?')}`;
};
app.ontoolresult = (result) => {
  if (!isForecast(result.structuredContent)) return;
  draw(result.structuredContent);
  byId('status').textContent = 'Forecast shown';
};

byId('units').addEventListener('click', () => {
  if (shown === undefined) return;
  const units = shown.units === 'celsius' ? 'fahrenheit' : 'celsius';
  void app.callServerTool({ name: 'switch_units', arguments: { city: shown.city, units } }).then((result) => {
    if (isForecast(result.structuredContent)) draw(result.structuredContent);
  }, (error: unknown) => {
    byId('status').textContent = `The host refused: ${error instanceof Error ? error.message : String(error)}`;
  });
});

byId('ask').addEventListener('click', () => {
  if (shown === undefined) return;
  void app.sendMessage({ role: 'user', content: [{ type: 'text', text: `What should I wear in ${shown.city} today?` }] }).then((result) => {
    byId('status').textContent = result.isError === true ? 'The host did not take the message' : 'Message sent to the chat';
  });
});

void app.connect();
