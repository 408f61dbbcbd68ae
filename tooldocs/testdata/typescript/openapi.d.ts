/** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
interface Tools {
  billing: {
    /** Create an invoice for a customer (POST /v1/invoices). */
    create_invoice(args: BillingCreateInvoiceArgs): Promise<unknown>;
  };
  petstore: {
    /** Add a new pet to the store */
    addPet(args: PetstoreAddPetArgs): Promise<PetstoreAddPetResult>;
    /** Finds Pets by status. Multiple status values can be provided with comma separated strings. */
    findPetsByStatus(args: PetstoreFindPetsByStatusArgs): Promise<PetstoreFindPetsByStatusResult>;
  };
}
declare const tools: Tools;

interface BillingCreateInvoiceArgs {
  /**
   * The ID of the customer to bill.
   * @maxLength 5000
   */
  customer: string;
  collection_method?: "charge_automatically" | "send_invoice";
  /**
   * @integer
   * @exclusiveMinimum 0
   */
  days_until_due?: number;
  /** Set of key-value pairs; an empty string unsets all keys. */
  metadata?: { [key: string]: string } | "";
  amount: Money;
  shipping?: {
    address: {
      line1: string;
      line2?: string;
      city?: string;
      /**
       * Two-letter country code (ISO 3166-1 alpha-2).
       * @pattern ^[A-Z]{2}$
       */
      country: string;
      postal_code?: string;
    };
    name: string;
    phone?: string;
  } | null;
  payment_settings?: {
    method: "card";
    card_id: string;
  } | {
    method: "bank_transfer";
    /**
     * @minLength 15
     * @maxLength 34
     */
    iban: string;
  };
  expand?: string[];
}

/** An amount of money in a currency. */
interface Money {
  /** @default "eur" */
  currency: "eur" | "usd" | "gbp" | "jpy";
  /**
   * Amount in the smallest currency unit.
   * @integer
   * @minimum 0
   */
  value: number;
}

interface PetstoreAddPetArgs {
  body: Pet;
  /**
   * Validate without saving.
   * @default false
   */
  dryRun?: boolean;
}

interface Pet {
  /**
   * @format int64
   * @integer
   */
  id?: number;
  category?: Category;
  name: string;
  photoUrls: string[];
  tags?: Tag[];
  /** pet status in the store */
  status?: "available" | "pending" | "sold";
}

interface Category {
  /**
   * @format int64
   * @integer
   */
  id?: number;
  name?: string;
}

interface Tag {
  /**
   * @format int64
   * @integer
   */
  id?: number;
  name?: string;
}

type PetstoreAddPetResult = PetstoreAddPetPet;

type PetstoreAddPetPet = Pet;

interface PetstoreFindPetsByStatusArgs {
  status: ("available" | "pending" | "sold")[];
  /**
   * Correlates the request in logs.
   * @format uuid
   */
  "X-Request-ID"?: string;
}

type PetstoreFindPetsByStatusResult = {
  /**
   * @format int64
   * @integer
   */
  id?: number;
  name?: string;
  tags?: Tag[];
}[];
