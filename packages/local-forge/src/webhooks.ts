// Sends webhooks the way GitHub's hookshot does: one POST per event, signed over the exact body,
// recorded with its answer, never retried on failure (only redelivered on request, with the same
// X-GitHub-Delivery guid and the same bytes).

import { createHmac, randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { type DeliveryRecord, MAX_DELIVERIES, timestamp } from './state.ts';
import type { ForgeStore } from './store.ts';

export interface WebhookEvent {
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  payload: object;
}

/** What a control call reports about each webhook it caused. */
export interface DeliverySummary {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  redelivery: boolean;
  status: string;
  statusCode: number;
}

/** A GitHub App's webhook sends JSON, or a form whose `payload` field holds the JSON. */
export const WebhookContentType = { json: 'json', form: 'form' } as const;
export type WebhookContentType = (typeof WebhookContentType)[keyof typeof WebhookContentType];

export interface WebhookSenderOptions {
  url: string | null;
  timeoutMs: number;
  contentType?: WebhookContentType;
}

/** GitHub gives up on a receiver after 10 s and records the delivery as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RECORDED_RESPONSE = 10_000;
const HOOKSHOT_VERSION = 'a8b2e3f';

/** A redelivery sends the same bytes, so its content type follows the body, not today's setting. */
const contentTypeOf = (body: string) =>
  body.startsWith('payload=') ? 'application/x-www-form-urlencoded' : 'application/json';

export function summarise(delivery: DeliveryRecord): DeliverySummary {
  return {
    id: delivery.id,
    guid: delivery.guid,
    event: delivery.event,
    action: delivery.action,
    redelivery: delivery.redelivery,
    status: delivery.status,
    statusCode: delivery.statusCode,
  };
}

export class WebhookSender {
  url: string | null;
  /** The app's webhook content type setting; the signature covers the body as sent either way. */
  contentType: WebhookContentType;
  /** Fault: this many next attempts are recorded as failed without being sent. */
  failNext = 0;
  private readonly store: ForgeStore;
  private readonly timeoutMs: number;

  constructor(store: ForgeStore, options: WebhookSenderOptions) {
    this.store = store;
    this.url = options.url;
    this.timeoutMs = options.timeoutMs;
    this.contentType = options.contentType ?? WebhookContentType.json;
  }

  /** Resolves once the receiver answered (or failed); null when no webhook URL is configured. */
  async send(event: WebhookEvent): Promise<DeliveryRecord | null> {
    const json = JSON.stringify(event.payload);
    const body =
      this.contentType === WebhookContentType.form ? new URLSearchParams({ payload: json }).toString() : json;
    return this.attempt({ ...event, guid: randomUUID(), body, redelivery: false });
  }

  async redeliver(original: DeliveryRecord): Promise<DeliveryRecord | null> {
    return this.attempt({
      event: original.event,
      action: original.action,
      installationId: original.installationId,
      repositoryId: original.repositoryId,
      guid: original.guid,
      body: original.body,
      redelivery: true,
    });
  }

  private async attempt(
    delivery: Omit<WebhookEvent, 'payload'> & { guid: string; body: string; redelivery: boolean },
  ): Promise<DeliveryRecord | null> {
    const url = this.url;
    if (!url) return null;
    const { app } = this.store.state;
    const requestHeaders: Record<string, string> = {
      Accept: '*/*',
      'Content-Type': contentTypeOf(delivery.body),
      'User-Agent': `GitHub-Hookshot/${HOOKSHOT_VERSION}`,
      'X-GitHub-Delivery': delivery.guid,
      'X-GitHub-Event': delivery.event,
      'X-GitHub-Hook-ID': String(app.hookId),
      'X-GitHub-Hook-Installation-Target-ID': String(app.id),
      'X-GitHub-Hook-Installation-Target-Type': 'integration',
      'X-Hub-Signature': `sha1=${createHmac('sha1', app.webhookSecret).update(delivery.body).digest('hex')}`,
      'X-Hub-Signature-256': await sign(app.webhookSecret, delivery.body),
    };
    const started = performance.now();
    const outcome = await this.post(url, requestHeaders, delivery.body);
    const record: DeliveryRecord = {
      id: this.store.nextId(),
      guid: delivery.guid,
      event: delivery.event,
      action: delivery.action,
      installationId: delivery.installationId,
      repositoryId: delivery.repositoryId,
      deliveredAt: timestamp(),
      redelivery: delivery.redelivery,
      duration: Math.round(performance.now() - started) / 1000,
      url,
      requestHeaders,
      body: delivery.body,
      ...outcome,
    };
    const deliveries = this.store.state.deliveries;
    deliveries.push(record);
    if (deliveries.length > MAX_DELIVERIES) deliveries.splice(0, deliveries.length - MAX_DELIVERIES);
    this.store.changed();
    return record;
  }

  private async post(
    url: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<Pick<DeliveryRecord, 'status' | 'statusCode' | 'responseHeaders' | 'responseBody'>> {
    const failed = (status: string) => ({ status, statusCode: 0, responseHeaders: {}, responseBody: null });
    if (this.failNext > 0) {
      this.failNext -= 1;
      return failed('failed to connect to host');
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = (await response.text()).slice(0, MAX_RECORDED_RESPONSE);
      return {
        status: response.ok ? 'OK' : `Invalid HTTP Response: ${response.status}`,
        statusCode: response.status,
        responseHeaders: Object.fromEntries(response.headers),
        responseBody: text,
      };
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      return failed(timedOut ? 'timed out' : 'failed to connect to host');
    }
  }
}
